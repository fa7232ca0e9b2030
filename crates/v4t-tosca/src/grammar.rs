//! The two grammars a TOSCA file can be written in; below the loader, the
//! keyname table and the sections, which all tell them apart.

/// The grammar a document is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grammar {
    /// `tosca_2_0`.
    Tosca2,
    /// `tosca_simple_yaml_1_3` (and 1.0 to 1.2, read with the 1.3 grammar).
    Tosca13,
}
