//! Reading Variability4TOSCA templates and TOSCA CSARs from the file system:
//! the I/O layer shared by the `v4t` command-line tool and the Python
//! package.
//!
//! The libraries below (`v4t`, `v4t-tosca`) do no I/O; they read the files
//! a template refers to through a [`v4t_source::Loader`]. This crate
//! provides the loaders ([`fs_loader::FsLoader`] for a directory,
//! [`csar::ArchiveLoader`] for a zip archive or tarball), the choice of a
//! CSAR's template ([`csar_entry`]), defensive reading ([`read`]: regular
//! files only, bounded sizes, paths confined to the template's directory)
//! and opening what a user names ([`open`]).

pub mod csar;
pub mod csar_entry;
pub mod dependencies;
pub mod fs_loader;
pub mod open;
pub mod read;
pub mod tarball;
