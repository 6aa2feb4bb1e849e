//! mend's Python module, `mend._mend` (the package `mend` re-exports it):
//! wrappers loaded from their YAML files, and pages extracted with them, by
//! the Rust library unchanged underneath. The GIL is released while a page
//! is parsed and extracted, so Python threads extract side by side.
//!
//! It refuses without crashing: a wrapper that does not load raises
//! `mend.WrapperError` with the first error's file, line and column; a page
//! that is neither `str` nor `bytes` raises `TypeError`, a URL that does not
//! parse `ValueError`; a panic inside mend (a bug) surfaces as PyO3's
//! `PanicException`, not as the end of the interpreter.

mod job;

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use mend::dom::Document;
use mend::fetch::Page as FetchedPage;
use mend::job::{PageOutput, RunOptions, process_document};
use mend::wrapper::{LoadError, Severity};

create_exception!(
    _mend,
    WrapperError,
    PyException,
    "A wrapper file that does not load: `.file`, `.line` and `.column` say where the first error is, `.message` what it is, and `str()` gives every diagnostic."
);

/// A wrapper loaded from its YAML file.
#[pyclass(frozen, module = "mend")]
struct Wrapper {
    inner: Arc<mend::wrapper::Wrapper>,
    /// The file it was loaded from: a job's store and rewrites go by it.
    path: PathBuf,
}

#[pymethods]
impl Wrapper {
    /// Loads the wrapper at `path`; raises `WrapperError` when it is not a
    /// valid wrapper, `OSError` when it cannot be read.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        match py.allow_threads(|| mend::wrapper::load_file(&path)) {
            Ok(wrapper) => Ok(Wrapper {
                inner: Arc::new(wrapper),
                path,
            }),
            Err(LoadError::Io { source, .. }) => Err(source.into()),
            Err(LoadError::Invalid(diagnostics)) => Err(wrapper_error(py, &diagnostics)),
            Err(other) => Err(WrapperError::new_err(other.to_string())),
        }
    }

    /// The wrapper's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// The names of its top-level patterns, in the file's order.
    #[getter]
    fn patterns(&self) -> Vec<String> {
        self.inner.patterns.iter().map(|p| p.name.clone()).collect()
    }

    /// Extracts one page (`str`, or `bytes` decoded as `encoding` says or
    /// else as the page declares), whose relative links resolve against
    /// `url`; gives a `Page`.
    #[pyo3(signature = (html, url = None, encoding = None))]
    fn extract(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<&str>,
        encoding: Option<&str>,
    ) -> PyResult<Page> {
        let wrapper = Arc::clone(&self.inner);
        let options = RunOptions::default();
        // The page is parsed where Python holds it, never copied: text as
        // the UTF-8 CPython encodes it to (which a <meta> must not decode
        // again), bytes as they are (decoded as the page declares).
        let utf8;
        let (bytes, charset) = if let Ok(text) = html.downcast::<PyString>() {
            refuse_encoding_of_text(encoding)?;
            utf8 = text.encode_utf8()?;
            (utf8.as_bytes(), Some("utf-8"))
        } else if let Ok(bytes) = html.downcast::<PyBytes>() {
            (bytes.as_bytes(), charset_of(encoding)?)
        } else {
            return Err(PyTypeError::new_err("html must be str or bytes"));
        };
        let page = page_named(url)?;
        let out = py.allow_threads(|| {
            let doc = Document::parse_with_transport(bytes, charset);
            process_document(&wrapper, &page, &doc, &options)
        });
        Page::of(py, &out)
    }

    fn __repr__(&self) -> String {
        format!("<mend.Wrapper {:?}>", self.inner.name)
    }
}

/// A page given from Python (`str`, or `bytes` decoded as `encoding` says
/// or else as the page declares), whose relative links resolve against
/// `url`.
fn fetched_page(
    html: &Bound<'_, PyAny>,
    url: Option<&str>,
    encoding: Option<&str>,
) -> PyResult<FetchedPage> {
    let (bytes, charset) = if let Ok(text) = html.downcast::<PyString>() {
        refuse_encoding_of_text(encoding)?;
        // Text is decoded already: a <meta> must not decode it again.
        (
            text.to_cow()?.into_owned().into_bytes(),
            Some("utf-8".to_owned()),
        )
    } else if let Ok(bytes) = html.downcast::<PyBytes>() {
        (
            bytes.as_bytes().to_vec(),
            charset_of(encoding)?.map(str::to_owned),
        )
    } else {
        return Err(PyTypeError::new_err("html must be str or bytes"));
    };
    Ok(FetchedPage {
        bytes,
        charset,
        ..page_named(url)?
    })
}

/// The canonical name of the charset `label` names (a WHATWG label, such
/// as Scrapy's `response.encoding`), or `ValueError`.
fn charset_of(label: Option<&str>) -> PyResult<Option<&'static str>> {
    label
        .map(|l| {
            encoding_rs::Encoding::for_label(l.trim().as_bytes())
                .map(encoding_rs::Encoding::name)
                .ok_or_else(|| PyValueError::new_err(format!("encoding: {l:?} is not a charset")))
        })
        .transpose()
}

/// `encoding` is for bytes: text was decoded already.
fn refuse_encoding_of_text(encoding: Option<&str>) -> PyResult<()> {
    match encoding {
        Some(_) => Err(PyValueError::new_err(
            "encoding is for bytes: a str is decoded already",
        )),
        None => Ok(()),
    }
}

/// A page without bytes yet, named by `url` (`-` without one).
fn page_named(url: Option<&str>) -> PyResult<FetchedPage> {
    let url = url
        .map(url::Url::parse)
        .transpose()
        .map_err(|e| PyValueError::new_err(format!("url: {e}")))?;
    Ok(FetchedPage {
        name: url
            .as_ref()
            .map_or_else(|| "-".to_owned(), url::Url::to_string),
        url,
        bytes: Vec::new(),
        charset: None,
    })
}

/// What a wrapper made of one page.
#[pyclass(frozen, module = "mend")]
struct Page {
    /// The page's records: a list of dicts, values typed as the wrapper says.
    #[pyo3(get)]
    records: PyObject,
    /// The constraints that failed, as dicts.
    #[pyo3(get)]
    violations: PyObject,
    /// The heals tried on the page, as dicts (none without a healing job).
    #[pyo3(get)]
    adaptations: PyObject,
}

impl Page {
    /// The page's output as Python objects, converted straight from mend's
    /// values (no JSON text in between).
    fn of(py: Python<'_>, out: &PageOutput) -> PyResult<Page> {
        Ok(Page {
            records: pythonize::pythonize(py, &out.records)?.unbind(),
            violations: pythonize::pythonize(py, &out.violations)?.unbind(),
            adaptations: pythonize::pythonize(py, &out.adaptations)?.unbind(),
        })
    }
}

#[pymethods]
impl Page {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<mend.Page: {} records, {} violations>",
            self.records.bind(py).len()?,
            self.violations.bind(py).len()?
        ))
    }
}

/// `WrapperError` for a wrapper's diagnostics, placed at the first error.
fn wrapper_error(py: Python<'_>, diagnostics: &[mend::wrapper::Diagnostic]) -> PyErr {
    let first = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .or(diagnostics.first());
    let err = WrapperError::new_err(mend::wrapper::render_all(diagnostics));
    if let Some(d) = first {
        let value = err.value(py);
        for (name, set) in [
            ("file", value.setattr("file", &d.file)),
            ("line", value.setattr("line", d.line)),
            ("column", value.setattr("column", d.column)),
            ("message", value.setattr("message", &d.message)),
        ] {
            if let Err(e) = set {
                return PyValueError::new_err(format!("cannot set WrapperError.{name}: {e}"));
            }
        }
    }
    err
}

/// The module.
#[pymodule]
fn _mend(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Wrapper>()?;
    m.add_class::<Page>()?;
    m.add_class::<job::Job>()?;
    m.add_class::<job::JobSummary>()?;
    m.add("WrapperError", m.py().get_type::<WrapperError>())?;
    m.add("JobError", m.py().get_type::<job::JobError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
