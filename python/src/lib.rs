//! The `v4t` Python module: the v4t library and the CLI's file loading
//! (`v4t-files`) behind a small Python API. Templates and inputs go in as
//! paths and Python data, results come out as Python data; every failure
//! is a Python exception (`ResolveError` with the diagnostics, `TypeError`
//! for arguments of the wrong type, `FileNotFoundError`), never a crash.
//! The GIL is released while the library works.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use v4t::{Diagnostic as LibDiagnostic, ResolveOptions, Severity, Sources, Span};
use v4t_files::open::{open_repository, open_template, OpenError, Template};
use v4t_yaml::{Location, Map, Node, Value};

create_exception!(
    v4t,
    ResolveError,
    PyValueError,
    "A template that cannot be resolved, analysed or explained (or cannot be read). \
     `.diagnostics` holds the errors as `Diagnostic`s; `str(error)` is the first message."
);

/// A note of a diagnostic: more about the problem, where known with a location.
#[pyclass(frozen, get_all, module = "v4t")]
#[derive(Clone)]
struct Note {
    /// What the note says.
    message: String,
    /// The file it points into, if known.
    file: Option<String>,
    /// 1-based line, if known.
    line: Option<u32>,
    /// 1-based column (characters), if known.
    column: Option<u32>,
}

#[pymethods]
impl Note {
    fn __repr__(&self) -> String {
        format!(
            "Note({:?}, file={:?}, line={:?})",
            self.message, self.file, self.line
        )
    }
}

/// One error or warning with a stable code (`V4T0xx`, `V4T1xx`; see
/// docs/diagnostics.md) and, where known, its range in a file.
#[pyclass(frozen, get_all, module = "v4t")]
#[derive(Clone)]
struct Diagnostic {
    /// `"error"` or `"warning"`.
    severity: String,
    /// The stable code, such as `"V4T011"`.
    code: String,
    /// The message (the reference implementation's text where it has one).
    message: String,
    /// The file the range is in, if known.
    file: Option<String>,
    /// 1-based first line, if known.
    line: Option<u32>,
    /// 1-based first column (characters), if known.
    column: Option<u32>,
    /// 1-based last line, if known.
    end_line: Option<u32>,
    /// 1-based column after the range (exclusive), if known.
    end_column: Option<u32>,
    /// The id of the element it is about (`node.db`), if known.
    element: Option<String>,
    /// Further notes.
    notes: Vec<Note>,
}

#[pymethods]
impl Diagnostic {
    /// `file:line:column: severity[code]: message` (the location only when known).
    fn __str__(&self) -> String {
        let place = match (&self.file, self.line, self.column) {
            (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}: "),
            _ => String::new(),
        };
        format!("{place}{}[{}]: {}", self.severity, self.code, self.message)
    }

    fn __repr__(&self) -> String {
        format!("<Diagnostic {}>", self.__str__())
    }

    /// Whether this is an error (not a warning).
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

/// The file and lines and columns of a known span.
fn location(sources: &Sources, span: Span) -> Option<(String, Location)> {
    if !span.is_known() {
        return None;
    }
    sources
        .get(span.source)
        .map(|f| (f.name.clone(), f.locate(span)))
}

impl Diagnostic {
    fn new(sources: &Sources, d: &LibDiagnostic) -> Diagnostic {
        let at = location(sources, d.span);
        let notes = d
            .notes
            .iter()
            .map(|n| {
                let at = location(sources, n.span);
                Note {
                    message: n.message.clone(),
                    file: at.as_ref().map(|(f, _)| f.clone()),
                    line: at.as_ref().map(|(_, s)| s.line),
                    column: at.as_ref().map(|(_, s)| s.col),
                }
            })
            .collect();
        Diagnostic {
            severity: match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            }
            .to_string(),
            code: d.code.as_str().to_string(),
            message: d.message.clone(),
            file: at.as_ref().map(|(f, _)| f.clone()),
            line: at.as_ref().map(|(_, s)| s.line),
            column: at.as_ref().map(|(_, s)| s.col),
            end_line: at.as_ref().map(|(_, s)| s.end_line),
            end_column: at.as_ref().map(|(_, s)| s.end_col),
            element: d.element.clone(),
            notes,
        }
    }
}

/// A `ResolveError` carrying `diagnostics` (its message: the first one's).
fn resolve_error(py: Python<'_>, diagnostics: Vec<Diagnostic>) -> PyErr {
    let message = diagnostics
        .first()
        .map_or_else(|| "resolution failed".to_string(), |d| d.message.clone());
    let error = ResolveError::new_err(message);
    let list = diagnostics
        .into_iter()
        .map(|d| Py::new(py, d))
        .collect::<PyResult<Vec<_>>>()
        .and_then(|items| PyList::new(py, items));
    match list {
        Ok(list) => match error.value(py).setattr("diagnostics", list) {
            Ok(()) => error,
            Err(e) => e,
        },
        Err(e) => e,
    }
}

/// The error for a template or repository that could not be opened.
fn open_error(py: Python<'_>, error: OpenError) -> PyErr {
    let (sources, d) = error.into_diagnostic();
    resolve_error(py, vec![Diagnostic::new(&sources, &d)])
}

/// A path argument: `str` or `os.PathLike`; a missing path is
/// `FileNotFoundError`.
fn existing_path(path: PathBuf) -> PyResult<String> {
    if std::fs::metadata(&path).is_err() {
        return Err(PyFileNotFoundError::new_err((
            2,
            "No such file or directory",
            path.display().to_string(),
        )));
    }
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| PyValueError::new_err("the path is not valid UTF-8"))
}

/// The presets argument: `None`, one name, or a list or tuple of names.
fn presets_of(presets: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(presets) = presets.filter(|p| !p.is_none()) else {
        return Ok(Vec::new());
    };
    if let Ok(name) = presets.cast::<PyString>() {
        return Ok(vec![name.to_cow()?.into_owned()]);
    }
    if !(presets.is_instance_of::<PyList>() || presets.is_instance_of::<PyTuple>()) {
        return Err(PyTypeError::new_err(format!(
            "presets must be a string or a list of strings, not {}",
            presets.get_type().name()?
        )));
    }
    presets
        .try_iter()?
        .map(|item| {
            let item = item?;
            item.cast::<PyString>()
                .map(|s| s.to_cow().map(|c| c.into_owned()))
                .map_err(|_| {
                    let kind = item
                        .get_type()
                        .name()
                        .map_or_else(|_| "?".to_string(), |n| n.to_string());
                    PyTypeError::new_err(format!("a preset name must be a string, not {kind}"))
                })?
        })
        .collect()
}

/// Python data as a document node: `None`, `bool`, `int`, `float`, `str`,
/// lists and tuples, dicts with string keys.
fn node_of(value: &Bound<'_, PyAny>, depth: usize) -> PyResult<Node> {
    if depth > 256 {
        return Err(PyValueError::new_err("inputs are nested too deeply"));
    }
    if value.is_none() {
        return Ok(Node::null());
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Node::bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        // JavaScript numbers: integers beyond 2^53 lose precision as there.
        return Ok(Node::number(value.extract::<f64>()?));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(Node::number(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Node::string(s.to_cow()?));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = Map::new();
        for (key, item) in dict.iter() {
            let key = key
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err("input names (dict keys) must be strings"))?;
            map.insert(key.to_cow()?.as_ref(), node_of(&item, depth + 1)?);
        }
        return Ok(Node::map(map));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value
            .try_iter()?
            .map(|item| node_of(&item?, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Node::seq(items));
    }
    Err(PyTypeError::new_err(format!(
        "cannot pass a {} as a variability input value (use None, bool, int, float, str, list or dict)",
        value.get_type().name()?
    )))
}

/// The inputs argument: `None` or a dict of input names to values.
fn inputs_of(inputs: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Node>> {
    match inputs.filter(|i| !i.is_none()) {
        None => Ok(None),
        Some(i) if i.is_instance_of::<PyDict>() => node_of(i, 0).map(Some),
        Some(i) => Err(PyTypeError::new_err(format!(
            "inputs must be a dict, not {}",
            i.get_type().name()?
        ))),
    }
}

/// A document node as Python data (maps as dicts in document order).
fn python_of<'py>(py: Python<'py>, node: &Node) -> PyResult<Bound<'py, PyAny>> {
    Ok(match &node.value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => {
            (*n as i64).into_pyobject(py)?.into_any()
        }
        Value::Number(n) => n.into_pyobject(py)?.into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        // TOSCA 1.3 timestamps as the YAML text a reader would see.
        Value::Timestamp(ms) => PyString::new(
            py,
            &v4t_yaml::json::to_json(&Node::new(Value::Timestamp(*ms), node.span)),
        )
        .into_any(),
        Value::Seq(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(python_of(py, item)?)?;
            }
            list.into_any()
        }
        Value::Map(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map.iter() {
                dict.set_item(key.name.as_ref(), python_of(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Opens the template at `path` and resolves it with the GIL released: the
/// resolved document, or the errors (warnings are dropped on success).
fn resolve_node(
    py: Python<'_>,
    path: PathBuf,
    presets: Option<&Bound<'_, PyAny>>,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<Node> {
    let path = existing_path(path)?;
    let options = ResolveOptions {
        presets: presets_of(presets)?,
        inputs: inputs_of(inputs)?,
        report: false,
        ..ResolveOptions::default()
    };
    let outcome = py.detach(move || {
        let Template {
            mut sources,
            id,
            mut loader,
            ..
        } = open_template(&path).map_err(Failure::Open)?;
        v4t::resolve(&mut sources, id, &mut loader, &options)
            .map(|resolved| resolved.template)
            .map_err(|e| Failure::Library(sources, e))
    });
    outcome.map_err(|f| f.into_py(py))
}

/// Why a call failed, carried out of the GIL-free section.
enum Failure {
    Open(OpenError),
    Library(Sources, v4t::Error),
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Open(e) => open_error(py, e),
            Failure::Library(sources, e) => resolve_error(
                py,
                e.diagnostics()
                    .map(|d| Diagnostic::new(&sources, d))
                    .collect(),
            ),
        }
    }
}

/// Resolves the variable service template at `path` (a YAML file, a CSAR
/// directory or a zipped CSAR) with the presets (a name or a list of names,
/// applied in order) and inputs (a dict), and returns the resolved TOSCA
/// template as Python data.
///
/// Raises `ResolveError` (with `.diagnostics`) when the template cannot be
/// resolved, `FileNotFoundError` when `path` does not exist and `TypeError`
/// for presets or inputs of the wrong type.
#[pyfunction]
#[pyo3(signature = (path, presets=None, inputs=None))]
fn resolve<'py>(
    py: Python<'py>,
    path: PathBuf,
    presets: Option<&Bound<'py, PyAny>>,
    inputs: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let node = resolve_node(py, path, presets, inputs)?;
    python_of(py, &node)
}

/// Like `resolve`, but returns the resolved template as YAML text, exactly
/// as `v4t resolve` writes it.
#[pyfunction]
#[pyo3(signature = (path, presets=None, inputs=None))]
fn resolve_text(
    py: Python<'_>,
    path: PathBuf,
    presets: Option<&Bound<'_, PyAny>>,
    inputs: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let node = resolve_node(py, path, presets, inputs)?;
    Ok(py.detach(move || v4t::to_yaml(&node)))
}

/// Validates the TOSCA 2.0 (or 1.3) file, CSAR directory or archive at
/// `path` with everything it imports, as `v4t validate` does, and returns
/// every error and warning (an empty list for a valid file).
///
/// Raises `FileNotFoundError` when `path` does not exist and
/// `ResolveError` when an archive cannot be read.
#[pyfunction]
fn validate(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Diagnostic>> {
    let path = PathBuf::from(existing_path(path)?);
    let outcome =
        py.detach(move || open_repository(&path, None).map(|r| r.validate(Default::default())));
    let (sources, diagnostics, _) = outcome.map_err(|e| open_error(py, e))?;
    Ok(diagnostics
        .iter()
        .map(|d| Diagnostic::new(&sources, d))
        .collect())
}

/// Opens the template at `path` for a command that reads it only.
fn open_for_analysis(path: PathBuf) -> PyResult<String> {
    existing_path(path)
}

/// Analyses every configuration of the template at `path` at once (as
/// `v4t analyze --format json`): counts, dead and core elements, failing
/// configurations and the presets, as a dict.
///
/// Raises `ResolveError` when the template itself is invalid.
#[pyfunction]
#[pyo3(signature = (path, enumerate=0))]
fn analyze<'py>(py: Python<'py>, path: PathBuf, enumerate: usize) -> PyResult<Bound<'py, PyAny>> {
    let path = open_for_analysis(path)?;
    let options = v4t::analyze::AnalyzeOptions {
        enumerate,
        ..v4t::analyze::AnalyzeOptions::default()
    };
    let outcome = py.detach(move || {
        let Template {
            mut sources,
            id,
            mut loader,
            ..
        } = open_template(&path).map_err(Failure::Open)?;
        match v4t::analyze::analyze(&mut sources, id, &mut loader, &options) {
            Ok(a) => Ok(a.to_node(&sources)),
            Err(e) => Err(Failure::Library(sources, e)),
        }
    });
    let node = outcome.map_err(|f| f.into_py(py))?;
    python_of(py, &node)
}

/// Explains a variant of the template at `path` (as `v4t explain --format
/// json`): for each element named in `elements` (ids such as `node.db`, or
/// node names; all if none), whether it is present and why, or why the
/// variant does not resolve. Returns a dict.
#[pyfunction]
#[pyo3(signature = (path, elements=None, presets=None, inputs=None))]
fn explain<'py>(
    py: Python<'py>,
    path: PathBuf,
    elements: Option<Vec<String>>,
    presets: Option<&Bound<'py, PyAny>>,
    inputs: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let path = open_for_analysis(path)?;
    let options = v4t::explain::ExplainOptions {
        variant: ResolveOptions {
            presets: presets_of(presets)?,
            inputs: inputs_of(inputs)?,
            report: false,
            ..ResolveOptions::default()
        },
        elements: elements.unwrap_or_default(),
    };
    let outcome = py.detach(move || {
        let Template {
            mut sources,
            id,
            mut loader,
            ..
        } = open_template(&path).map_err(Failure::Open)?;
        match v4t::explain::explain(&mut sources, id, &mut loader, &options) {
            Ok(e) => Ok(e.to_node(&sources)),
            Err(e) => Err(Failure::Library(sources, e)),
        }
    });
    let node = outcome.map_err(|f| f.into_py(py))?;
    python_of(py, &node)
}

/// Resolve, validate, analyse and explain Variability4TOSCA templates.
#[pymodule]
#[pyo3(name = "v4t")]
fn v4t_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ResolveError", m.py().get_type::<ResolveError>())?;
    m.add_class::<Diagnostic>()?;
    m.add_class::<Note>()?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_text, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    Ok(())
}
