//! Rendering of errors for humans, rustc-style, with annotate-snippets.
//!
//! The first line is always `error: <message>` with the message unchanged
//! (scripts and tests compare it with the reference implementation's texts);
//! if the error has a known location, the `--> file:line:col` pointer, the
//! source line and a caret follow.

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use v4t::{Sources, Span};

/// How diagnostics are printed (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style text.
    #[default]
    Text,
    /// One JSON object per line (JSON Lines).
    Json,
}

/// When to colour diagnostics (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard error is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether standard error is a terminal.
    pub fn enabled(self, terminal: bool) -> bool {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        self.decide(terminal, no_color)
    }

    /// [`ColorChoice::enabled`] with the environment given (testable).
    fn decide(self, terminal: bool, no_color: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => terminal && !no_color,
        }
    }
}

/// The severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Where diagnostics go: standard error, as text or JSON.
#[derive(Clone, Copy, Debug)]
pub struct Reporter {
    pub format: Format,
    pub color: bool,
    /// Leave out warnings (`--quiet`).
    pub quiet: bool,
}

impl Reporter {
    /// Formats one diagnostic (always ends with a newline). `element` is the
    /// id of the element it is about, if known.
    pub fn format(
        &self,
        sources: &Sources,
        severity: Severity,
        message: &str,
        span: Span,
        element: Option<&str>,
    ) -> String {
        let mut out = match self.format {
            Format::Text => render_as(sources, severity, message, span, self.color),
            Format::Json => json(sources, severity, message, span, element),
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if let (Format::Text, Some(id)) = (self.format, element) {
            out.push_str(&format!("  = note: in element {id}\n"));
        }
        out
    }

    /// Prints one diagnostic to standard error.
    pub fn emit(
        &self,
        sources: &Sources,
        severity: Severity,
        message: &str,
        span: Span,
        element: Option<&str>,
    ) {
        if self.quiet && severity == Severity::Warning {
            return;
        }
        eprint!("{}", self.format(sources, severity, message, span, element));
    }

    /// Prints a library error.
    pub fn emit_error(&self, sources: &Sources, e: &v4t::Error) {
        self.emit(
            sources,
            Severity::Error,
            &e.message,
            e.span,
            e.element.as_deref(),
        );
    }

    /// Prints an error that has no location (I/O, usage).
    pub fn error(&self, message: &str) {
        self.emit(&Sources::new(), Severity::Error, message, Span::NONE, None);
    }
}

/// One diagnostic as a JSON object on one line: `severity`, `message`, and,
/// when known, `file`, `line` and `column` (1-based) and `element` (the id of
/// the element the diagnostic is about).
pub fn json(
    sources: &Sources,
    severity: Severity,
    message: &str,
    span: Span,
    element: Option<&str>,
) -> String {
    let mut out = String::from("{\"severity\":");
    v4t_yaml::json::write_json_string(&mut out, severity.word());
    out.push_str(",\"message\":");
    v4t_yaml::json::write_json_string(&mut out, message);
    if let Some(file) = span.is_known().then(|| sources.get(span.source)).flatten() {
        out.push_str(",\"file\":");
        v4t_yaml::json::write_json_string(&mut out, &file.name);
        out.push_str(&format!(",\"line\":{},\"column\":{}", span.line, span.col));
    }
    if let Some(id) = element {
        out.push_str(",\"element\":");
        v4t_yaml::json::write_json_string(&mut out, id);
    }
    out.push_str("}\n");
    out
}

/// Renders an error `message` at `span` (which may be unknown). `color`
/// selects ANSI styling (only wanted when writing to a terminal).
#[cfg(test)]
pub fn render(sources: &Sources, message: &str, span: Span, color: bool) -> String {
    render_as(sources, Severity::Error, message, span, color)
}

/// [`render`] with a severity (`error:` or `warning:`).
pub fn render_as(
    sources: &Sources,
    severity: Severity,
    message: &str,
    span: Span,
    color: bool,
) -> String {
    let word = severity.word();
    let header = if color {
        let code = if severity == Severity::Error { 31 } else { 33 };
        format!("\x1b[1;{code}m{word}\x1b[0m\x1b[1m: {message}\x1b[0m\n")
    } else {
        format!("{word}: {message}\n")
    };
    let Some(file) = span.is_known().then(|| sources.get(span.source)).flatten() else {
        return header;
    };
    // Errors at the end of the input may point one line past the last one.
    let line = file
        .text
        .lines()
        .nth(span.line as usize - 1)
        .unwrap_or_default();
    let range = char_range(line, span.col as usize);
    let snippet = Snippet::source(line)
        .line_start(span.line as usize)
        .path(file.name.as_str())
        .annotation(AnnotationKind::Primary.span(range));
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    // annotate-snippets re-indents multi-line titles; render a placeholder
    // title and keep only the snippet part, so the message stays unchanged.
    let level = match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let rendered = renderer.render(&[level.primary_title("_").element(snippet)]);
    let body = rendered
        .split_once('\n')
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let mut out = header;
    out.push_str(body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The byte range of the character at 1-based column `col` of `line`
/// (empty at the end of the line, clamped if the column is too large).
fn char_range(line: &str, col: usize) -> std::ops::Range<usize> {
    match line.char_indices().nth(col.saturating_sub(1)) {
        Some((start, c)) => start..start + c.len_utf8(),
        None => line.len()..line.len(),
    }
}

/// Runs `f`, turning a panic into `Err("<message> at <file:line:col>")`.
///
/// The library is written by several people at once; one bug must not take
/// down a whole test run or print a raw panic. A quiet panic hook records the
/// message and location per thread instead of printing them.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_quiet_panic_hook();
    LAST_PANIC.with(|p| p.borrow_mut().take());
    let outer = CATCHING.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(outer));
    result.map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| payload_message(payload.as_ref()))
    })
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// Whether this thread is inside [`catch_panic`] (panics elsewhere are
    /// reported by the previous hook as usual).
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(|c| c.get()) {
                return previous(info);
            }
            let mut message = payload_message(info.payload());
            if let Some(location) = info.location() {
                message.push_str(&format!(" at {location}"));
            }
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(message));
        }));
    });
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use v4t::SourceId;

    #[test]
    fn unknown_span_is_just_the_message() {
        let sources = Sources::new();
        let out = render(&sources, "Could not solve", Span::NONE, false);
        assert_eq!(out, "error: Could not solve\n");
    }

    #[test]
    fn known_span_points_at_the_column() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\nbé: [x\n");
        let out = render(&sources, "bad", Span::new(id, 2, 5), false);
        let lines: Vec<_> = out.lines().collect();
        assert_eq!(lines[0], "error: bad");
        assert_eq!(lines[1], " --> t.yaml:2:5", "{out}");
        assert!(out.contains("bé: [x"), "{out}");
        // The caret sits under `[` (column 5).
        let caret = lines.iter().find(|l| l.trim_end().ends_with('^')).unwrap();
        let source = lines.iter().find(|l| l.contains("bé: [x")).unwrap();
        assert_eq!(
            caret.chars().position(|c| c == '^'),
            source.chars().position(|c| c == '[')
        );
        assert_eq!(SourceId(0), id);
    }

    #[test]
    fn multi_line_messages_keep_their_first_line() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\n");
        let out = render(
            &sources,
            "Value {\n    \"a\": 1\n}",
            Span::new(id, 1, 1),
            false,
        );
        assert!(
            out.starts_with("error: Value {\n    \"a\": 1\n}\n --> t.yaml:1:1\n"),
            "{out}"
        );
    }

    #[test]
    fn json_has_one_object_per_line() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\n");
        assert_eq!(
            json(&sources, Severity::Warning, "say \"hi\"", Span::new(id, 1, 4), None),
            "{\"severity\":\"warning\",\"message\":\"say \\\"hi\\\"\",\"file\":\"t.yaml\",\"line\":1,\"column\":4}\n"
        );
        assert_eq!(
            json(&sources, Severity::Error, "x", Span::NONE, None),
            "{\"severity\":\"error\",\"message\":\"x\"}\n"
        );
        assert_eq!(
            json(&sources, Severity::Error, "x", Span::NONE, Some("node.a")),
            "{\"severity\":\"error\",\"message\":\"x\",\"element\":\"node.a\"}\n"
        );
        let text = render_as(&sources, Severity::Warning, "w", Span::new(id, 1, 1), false);
        assert!(text.starts_with("warning: w\n --> t.yaml:1:1\n"), "{text}");
    }

    #[test]
    fn color_choice() {
        assert!(ColorChoice::Auto.decide(true, false));
        assert!(
            !ColorChoice::Auto.decide(true, true),
            "NO_COLOR wins over auto"
        );
        assert!(!ColorChoice::Auto.decide(false, false));
        assert!(ColorChoice::Always.decide(false, true));
        assert!(!ColorChoice::Never.decide(true, false));
    }

    #[test]
    fn panics_become_errors() {
        let r: Result<(), String> = catch_panic(|| panic!("boom {}", 1));
        let message = r.unwrap_err();
        assert!(message.starts_with("boom 1 at "), "{message}");
        assert_eq!(catch_panic(|| 5), Ok(5));
    }
}
