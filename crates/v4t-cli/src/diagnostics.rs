//! Rendering of diagnostics for humans (rustc-style, with annotate-snippets)
//! and for programs (JSON Lines).
//!
//! The first line is always `error: <message>` (or `warning: `) with the
//! message unchanged (scripts and tests compare it with the reference
//! implementation's texts). If the diagnostic has a known location, the
//! `--> file:line:col` pointer, the source line and the range underlined
//! follow; then `= note:` lines (the element, notes without a location),
//! notes with a location as their own snippets, and `= code: V4T0xx`.

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use v4t::{Code, Diagnostic, Severity, Sources, Span};

/// How diagnostics are printed (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style text.
    #[default]
    Text,
    /// One JSON object per line (JSON Lines).
    Json,
}

/// How `validate`, `resolve` and `test` print diagnostics (`--format`):
/// [`Format`] or SARIF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// rustc-style text.
    #[default]
    Text,
    /// One JSON object per line (JSON Lines).
    Json,
    /// One SARIF 2.1.0 log at the end ([`crate::sarif`]).
    Sarif,
}

impl From<Format> for ReportFormat {
    fn from(format: Format) -> ReportFormat {
        match format {
            Format::Text => ReportFormat::Text,
            Format::Json => ReportFormat::Json,
        }
    }
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

/// Where diagnostics go: standard error, as text or JSON as they come, or
/// as SARIF results collected for one log ([`Reporter::finish`]).
#[derive(Debug)]
pub struct Reporter {
    pub format: ReportFormat,
    pub color: bool,
    /// Leave out warnings (`--quiet`).
    pub quiet: bool,
    /// The SARIF results so far.
    sarif: std::cell::RefCell<Vec<v4t_yaml::Node>>,
}

impl Reporter {
    /// Diagnostics for standard error in `format`, coloured as `color`
    /// says for standard error, warnings left out if `quiet`.
    pub fn to_stderr(format: impl Into<ReportFormat>, color: ColorChoice, quiet: bool) -> Reporter {
        use std::io::IsTerminal;
        Reporter {
            format: format.into(),
            color: color.enabled(std::io::stderr().is_terminal()),
            quiet,
            sarif: Default::default(),
        }
    }

    /// Prints one diagnostic to standard error, or keeps it for the SARIF
    /// log (warnings not when quiet).
    pub fn report(&self, sources: &Sources, diagnostic: &Diagnostic) {
        if self.quiet && diagnostic.severity == Severity::Warning {
            return;
        }
        match self.format {
            ReportFormat::Text => eprint!("{}", render(sources, diagnostic, self.color)),
            ReportFormat::Json => eprint!("{}", json(sources, diagnostic)),
            ReportFormat::Sarif => self
                .sarif
                .borrow_mut()
                .push(crate::sarif::result(sources, diagnostic)),
        }
    }

    /// Prints the SARIF log of the diagnostics reported (with `--format
    /// sarif`; nothing otherwise). Called once, when the command ends.
    pub fn finish(&self) {
        if self.format == ReportFormat::Sarif {
            eprint!("{}", crate::sarif::log(self.sarif.take()));
        }
    }

    /// Prints a library error: the error, then the further errors found
    /// with it ([`v4t::Error::more`]).
    pub fn report_error(&self, sources: &Sources, error: &v4t::Error) {
        for d in error.diagnostics() {
            self.report(sources, d);
        }
    }

    /// Prints a note that has no location (not when quiet): `note: ...`, or
    /// a JSON object of severity `note` (not in a SARIF log, whose results
    /// are the diagnostics).
    pub fn note(&self, message: &str) {
        if self.quiet {
            return;
        }
        match self.format {
            ReportFormat::Text => eprint!("{}", header("note", message, 36, self.color)),
            ReportFormat::Sarif => {}
            ReportFormat::Json => {
                let mut out = String::from("{\"severity\":\"note\",\"message\":");
                v4t_yaml::json::write_json_string(&mut out, message);
                eprintln!("{out}}}");
            }
        }
    }

    /// Prints an error that has no location (I/O, usage).
    pub fn error(&self, code: Code, message: &str) {
        self.report(&Sources::new(), &Diagnostic::error(code, message));
    }
}

/// One diagnostic as a JSON object on one line ([`Diagnostic::to_json`]).
pub fn json(sources: &Sources, d: &Diagnostic) -> String {
    let mut out = d.to_json(sources);
    out.push('\n');
    out
}

/// The source a known span points into.
fn file_of(sources: &Sources, span: Span) -> Option<&v4t::SourceFile> {
    span.is_known().then(|| sources.get(span.source)).flatten()
}

/// Renders `d` rustc-style. `color` selects ANSI styling (only wanted when
/// writing to a terminal).
pub fn render(sources: &Sources, d: &Diagnostic, color: bool) -> String {
    let (word, level, ansi) = match d.severity {
        Severity::Error => ("error", Level::ERROR, 31),
        Severity::Warning => ("warning", Level::WARNING, 33),
    };
    let mut out = header(word, &d.message, ansi, color);
    out.push_str(&snippet(sources, d.span, level, color));
    if let Some(id) = &d.element {
        out.push_str(&format!("  = note: in element {}\n", escape(id)));
    }
    for note in d
        .notes
        .iter()
        .filter(|n| file_of(sources, n.span).is_none())
    {
        out.push_str(&format!("  = note: {}\n", escape(&note.message)));
    }
    for note in d
        .notes
        .iter()
        .filter(|n| file_of(sources, n.span).is_some())
    {
        out.push_str(&header("note", &note.message, 32, color));
        out.push_str(&snippet(sources, note.span, Level::NOTE, color));
    }
    out.push_str(&format!("  = code: {}\n", d.code));
    out
}

/// Whether `c` may not reach a terminal as it is: control characters
/// (terminal escape sequences start with one) and the invisible marks that
/// reorder or hide text (bidirectional overrides, isolates, marks).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` safe for a terminal: every [`hidden`] character as a `\u{..}`
/// escape, except line breaks and tabs (messages may span lines). Template
/// strings end up in messages, so a template could otherwise write escape
/// sequences to the user's terminal.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    let keep = |c: char| matches!(c, '\n' | '\t') || !hidden(c);
    if text.chars().all(keep) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A source line safe for a terminal with its columns unchanged: every
/// [`hidden`] character (but tabs) replaced by one visible character, its
/// Unicode control picture (`␛` for ESC) or `�`.
fn visible(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.chars().any(|c| c != '\t' && hidden(c)) {
        return std::borrow::Cow::Borrowed(line);
    }
    let shown = line.chars().map(|c| match c {
        '\t' => c,
        '\u{0}'..='\u{1F}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
        '\u{7F}' => '\u{2421}',
        c if hidden(c) => '\u{FFFD}',
        c => c,
    });
    std::borrow::Cow::Owned(shown.collect())
}

/// `word: message`, bold and coloured when `color` is set; the message
/// [`escape`]d.
pub fn header(word: &str, message: &str, ansi: u8, color: bool) -> String {
    let message = escape(message);
    if color {
        format!("\x1b[1;{ansi}m{word}\x1b[0m\x1b[1m: {message}\x1b[0m\n")
    } else {
        format!("{word}: {message}\n")
    }
}

/// The `--> file:line:col` pointer and the source line with the span's
/// range underlined (on its first line); empty for unknown spans.
pub fn snippet(sources: &Sources, span: Span, level: Level<'_>, color: bool) -> String {
    let Some(file) = file_of(sources, span) else {
        return String::new();
    };
    // Errors at the end of the input may point one line past the last one.
    // (The line through the file's line index: `v4t explain` shows many.)
    let at = file.locate(span);
    let line = file
        .offset(at.line, 1)
        .and_then(|start| file.text()[start..].split('\n').next())
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or_default();
    let end_col = if at.end_line == at.line {
        at.end_col as usize
    } else {
        usize::MAX
    };
    let line = visible(line);
    let name = escape(&file.name);
    let range = char_range(&line, at.col as usize, end_col);
    let snippet = Snippet::source(line.as_ref())
        .line_start(at.line as usize)
        .path(name.as_ref())
        .annotation(AnnotationKind::Primary.span(range));
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    // annotate-snippets re-indents multi-line titles; render a placeholder
    // title and keep only the snippet part, so the message stays unchanged.
    let rendered = renderer.render(&[level.primary_title("_").element(snippet)]);
    let mut body = rendered
        .split_once('\n')
        .map(|(_, rest)| rest.to_string())
        .unwrap_or_default();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    body
}

/// The byte range of 1-based columns `col..end_col` (characters, end
/// exclusive) of `line`: at least the character at `col` (empty at the end of
/// the line), clamped to the line.
fn char_range(line: &str, col: usize, end_col: usize) -> std::ops::Range<usize> {
    let offset = |c: usize| {
        line.char_indices()
            .nth(c.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i)
    };
    let start = offset(col);
    let one = line
        .get(start..)
        .and_then(|rest| rest.chars().next())
        .map_or(start, |c| start + c.len_utf8());
    let end = if end_col > col { offset(end_col) } else { one };
    start..end.max(one)
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

/// Installs the panic hook of the command line (once): a panic inside
/// [`catch_panic`] is recorded for its report, a failed write to a
/// closed standard output (`v4t analyze t.yaml | head`) ends the process
/// quietly with success, as ripgrep does, and any other panic is reported
/// by the previous hook.
pub fn install_quiet_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if stdout_closed(&payload_message(info.payload())) {
                std::process::exit(0);
            }
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

/// Whether a panic is `print!`'s on a standard output whose reader has
/// gone (Rust ignores SIGPIPE, so the write fails with EPIPE instead).
fn stdout_closed(message: &str) -> bool {
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
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

    fn error(message: &str, span: Span) -> Diagnostic {
        Diagnostic::error(Code::InvalidShape, message).at(span)
    }

    #[test]
    fn unknown_span_is_the_message_and_the_code() {
        let sources = Sources::new();
        let d = Diagnostic::error(Code::Unsatisfiable, "Could not solve");
        assert_eq!(
            render(&sources, &d, false),
            "error: Could not solve\n  = code: V4T040\n"
        );
    }

    #[test]
    fn known_span_underlines_the_range() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\nbé: [x, yz]\n");
        let out = render(
            &sources,
            &error("bad", sources.span(id, (2, 5), (2, 12))),
            false,
        );
        let lines: Vec<_> = out.lines().collect();
        assert_eq!(lines[0], "error: bad");
        assert_eq!(lines[1], " --> t.yaml:2:5", "{out}");
        let source = lines.iter().find(|l| l.contains("bé: [x, yz]")).unwrap();
        let carets = lines.iter().find(|l| l.trim_end().ends_with('^')).unwrap();
        let col = |l: &str, c: char| l.chars().position(|x| x == c);
        assert_eq!(col(carets, '^'), col(source, '['), "{out}");
        assert_eq!(carets.matches('^').count(), 7, "{out}");
        assert_eq!(lines.last(), Some(&"  = code: V4T011"));
        // A zero-width span still gets one caret; a multi-line range is
        // underlined to the end of its first line.
        let out = render(
            &sources,
            &error("bad", sources.span(id, (2, 5), (2, 5))),
            false,
        );
        assert_eq!(out.matches('^').count(), 1, "{out}");
        let out = render(
            &sources,
            &error("bad", sources.span(id, (1, 1), (2, 3))),
            false,
        );
        assert_eq!(out.matches('^').count(), 4, "{out}");
    }

    #[test]
    fn notes_and_element_follow_the_snippet() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\nb: 2\n");
        let d = error("Could not solve", sources.span(id, (1, 4), (1, 5)))
            .in_element("node.a")
            .with_note("plain note", None)
            .with_note("located note", sources.span(id, (2, 1), (2, 2)));
        let out = render(&sources, &d, false);
        let lines: Vec<_> = out.lines().collect();
        assert_eq!(lines[0], "error: Could not solve");
        let element = lines
            .iter()
            .position(|l| *l == "  = note: in element node.a");
        let plain = lines.iter().position(|l| *l == "  = note: plain note");
        let located = lines.iter().position(|l| *l == "note: located note");
        let pointer = lines.iter().position(|l| *l == " --> t.yaml:2:1");
        assert!(
            element < plain && plain < located && located < pointer,
            "{out}"
        );
        assert!(element.is_some() && pointer.is_some(), "{out}");
        assert_eq!(lines.last(), Some(&"  = code: V4T011"));
    }

    #[test]
    fn multi_line_messages_keep_their_first_line() {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", "a: 1\n");
        let out = render(
            &sources,
            &error("Value {\n    \"a\": 1\n}", sources.span(id, (1, 1), (1, 1))),
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
        let w = Diagnostic::warning(Code::UnknownKey, "say \"hi\"").at(sources.span(
            id,
            (1, 4),
            (1, 5),
        ));
        assert_eq!(
            json(&sources, &w),
            "{\"severity\":\"warning\",\"code\":\"V4T081\",\"message\":\"say \\\"hi\\\"\",\"file\":\"t.yaml\",\"line\":1,\"column\":4,\"end_line\":1,\"end_column\":5,\"notes\":[]}\n"
        );
        let d = Diagnostic::error(Code::Unsatisfiable, "x")
            .in_element("node.a")
            .with_note("n1", sources.span(id, (1, 1), (1, 1)))
            .with_note("n2", None);
        assert_eq!(
            json(&sources, &d),
            "{\"severity\":\"error\",\"code\":\"V4T040\",\"message\":\"x\",\"element\":\"node.a\",\"notes\":[{\"message\":\"n1\",\"file\":\"t.yaml\",\"line\":1,\"column\":1},{\"message\":\"n2\"}]}\n"
        );
        let text = render(&sources, &w, false);
        assert!(
            text.starts_with("warning: say \"hi\"\n --> t.yaml:1:4\n"),
            "{text}"
        );
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(escape("plain\nlines\ttab"), "plain\nlines\ttab");
        assert_eq!(escape("a\u{1b}[31mb\u{7}"), "a\\u{1b}[31mb\\u{7}");
        assert_eq!(escape("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(
            visible("a\u{1b}b\u{7f}\tc\u{85}"),
            "a\u{241b}b\u{2421}\tc\u{FFFD}"
        );

        let mut sources = Sources::new();
        let id = sources.add("t\u{1b}]0;title\u{7}.yaml", "key: \u{1b}[2J x\n");
        let d = Diagnostic::error(Code::Yaml, "bad \u{1b}[31mred\u{1b}[0m")
            .at(sources.span(id, (1, 6), (1, 7)))
            .in_element("node.\u{1b}x")
            .with_note("note \u{9b}31m", None);
        let out = render(&sources, &d, false);
        assert!(!out.chars().any(|c| c != '\n' && hidden(c)), "{out:?}");
        assert!(
            out.starts_with("error: bad \\u{1b}[31mred\\u{1b}[0m\n"),
            "{out}"
        );
        assert!(out.contains("t\\u{1b}]0;title\\u{7}.yaml:1:6"), "{out}");
        assert!(out.contains("key: \u{241b}[2J x"), "{out}");
        assert!(out.contains("in element node.\\u{1b}x"), "{out}");
        assert!(out.contains("note \\u{9b}31m"), "{out}");
        // The caret still sits under the replaced character.
        let lines: Vec<_> = out.lines().collect();
        let source = lines.iter().find(|l| l.contains("key:")).unwrap();
        let caret = lines.iter().find(|l| l.trim_end().ends_with('^')).unwrap();
        let col = |l: &str, c: char| l.chars().position(|x| x == c);
        assert_eq!(col(caret, '^'), col(source, '\u{241b}'), "{out}");
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
