//! The tools a client sees: their names, argument and output schemas, and
//! descriptions that tell a model what the sandbox has (engine, modules,
//! no network, files, limits), so that it writes code that works there.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::json;
use stockade::{Interpreter, Language, MountMode, SessionOptions, find_python};

pub const RUN_PYTHON: &str = "run_python";
pub const RUN_JAVASCRIPT: &str = "run_javascript";
pub const RESET: &str = "reset";

/// The language a run tool runs.
pub fn language_of(tool: &str) -> Option<Language> {
    match tool {
        RUN_PYTHON => Some(Language::Python),
        RUN_JAVASCRIPT => Some(Language::JavaScript),
        _ => None,
    }
}

fn object(value: serde_json::Value) -> Arc<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn run_input_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The source to run. The value of its last expression is returned as `result`."
            },
            "inputs": {
                "type": "object",
                "description": "Values to bind as global variables before the code runs, by name (JSON: null, booleans, numbers, strings, arrays, objects).",
                "additionalProperties": true
            }
        },
        "required": ["code"],
        "additionalProperties": false
    }))
}

/// The schema of `outcome::RunOutput`.
fn run_output_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "stdout": { "type": "string", "description": "What the code printed to standard output." },
            "stderr": { "type": "string", "description": "What the code printed to standard error." },
            "result": { "type": "string", "description": "The repr of the last expression's value, when it has one." },
            "error_type": { "type": "string", "description": "The exception's class: the guest's own (ZeroDivisionError, SyntaxError), or what stopped the call (TimeLimitError, MemoryLimitError, WorkerCrashed, ResultTooLarge; docs/limits.md names every one)." },
            "error_message": { "type": "string" },
            "traceback": { "type": "string" },
            "state_kept": { "type": "boolean", "description": "False when the call lost its sandbox: the next call starts a fresh one." },
            "note": { "type": "string", "description": "Set when the call ran in a fresh sandbox because the previous one was lost." },
            "outputs": {
                "type": "array",
                "description": "The rich outputs the code showed (display(), matplotlib figures), in order; each follows the text in the content, images as image content.",
                "items": {
                    "type": "object",
                    "properties": {
                        "mime_type": { "type": "string" },
                        "bytes": { "type": "integer" },
                        "text": { "type": "string", "description": "A plain-text form of the output." }
                    },
                    "required": ["mime_type", "bytes", "text"]
                }
            }
        },
        "required": ["stdout", "stderr", "state_kept"]
    }))
}

fn reset_input_schema() -> Arc<JsonObject> {
    object(json!({
        "type": "object",
        "properties": {
            "language": {
                "type": "string",
                "enum": ["python", "javascript"],
                "description": "The sandbox to reset; both when absent."
            }
        },
        "additionalProperties": false
    }))
}

fn seconds(duration: std::time::Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs} s")
    }
}

fn bytes(size: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if size >= 1024 * MIB && size.is_multiple_of(1024 * MIB) {
        format!("{} GiB", size / (1024 * MIB))
    } else {
        format!("{} MiB", size.div_ceil(MIB))
    }
}

/// What every description says about the sandbox's edges.
fn world(options: &SessionOptions) -> String {
    let mut parts = vec!["There is no network access.".to_owned()];
    if options.mounts.is_empty() {
        parts.push("No host files are visible.".into());
    } else {
        let dirs: Vec<String> = options
            .mounts
            .iter()
            .map(|mount| {
                let mode = match mount.mode() {
                    MountMode::ReadOnly => "read-only",
                    MountMode::ReadWrite => "read-write",
                    MountMode::Overlay => "writable, changes kept for this sandbox only",
                };
                format!("{} ({mode})", mount.guest_path())
            })
            .collect();
        parts.push(format!("Files: {}.", dirs.join(", ")));
    }
    if options.limits.max_scratch_bytes > 0 {
        parts.push(format!(
            "/tmp, the working directory, is a private writable directory for this sandbox's files (up to {}).",
            bytes(options.limits.max_scratch_bytes)
        ));
    }
    let mut limits = vec![format!(
        "{} per call (the sandbox is lost and replaced when a call passes it)",
        seconds(options.request_timeout)
    )];
    if let Some(memory) = options.limits.max_memory {
        limits.push(format!("{} of memory", bytes(memory)));
    }
    if let Some(total) = options.limits.max_duration {
        limits.push(format!(
            "{} of execution per sandbox (spent, it is replaced)",
            seconds(total)
        ));
    }
    parts.push(format!("Limits: {}.", limits.join(", ")));
    parts.join(" ")
}

/// What a CPython guest may import besides the standard library: the
/// packages the session names (a model writes `import pandas` only if it
/// knows it may), or those of its package directories.
fn packages(options: &SessionOptions) -> String {
    const NAMED: usize = 20;
    let named: Vec<&str> = options
        .cpython
        .packages
        .iter()
        .map(|requirement| requirement_name(requirement))
        .collect();
    let mut text = "the standard library".to_owned();
    if !named.is_empty() {
        let shown = named
            .iter()
            .take(NAMED)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        let more = named.len().saturating_sub(NAMED);
        text.push_str(&format!(" and the packages {shown}"));
        if more > 0 {
            text.push_str(&format!(" and {more} more"));
        }
        if !options.cpython.site_packages.is_empty() {
            text.push_str(", besides those installed for it");
        }
    } else if !options.cpython.site_packages.is_empty() {
        text.push_str(" and the packages installed for it");
    } else {
        text.push_str(" only, no third-party packages");
    }
    text
}

/// A requirement's distribution name: `pandas==3.1.1` is `pandas`.
fn requirement_name(requirement: &str) -> &str {
    let end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .unwrap_or(requirement.len());
    &requirement[..end]
}

fn python_engine(options: &SessionOptions) -> String {
    match options.interpreter() {
        Interpreter::CPython => {
            let version = find_python(options.cpython.python.as_deref())
                .map(|python| format!("CPython {}", python.version))
                .unwrap_or_else(|_| "CPython".into());
            let packages = packages(options);
            format!(
                "{version}, with {packages}; `print` to show output; `display(obj)` and matplotlib's `plt.show()` return charts as images and tables as text"
            )
        }
        _ => "monty, a subset of Python: functions, loops, comprehensions, dicts, f-strings and top-level await work; generators, class inheritance and most standard-library modules (heapq, csv, statistics, decimal, ...) do not, so keep to plain code; `print` to show output; `display(svgString)` or `display(pngBytes)` returns an image".into(),
    }
}

/// The tools, described for the options each language's sessions start with.
pub fn tools(python: &SessionOptions, javascript: &SessionOptions) -> Vec<Tool> {
    let state = "State persists between calls (variables, functions, imports) until `reset` or until a call loses the sandbox.";
    let run_python = format!(
        "Run Python code in a sandbox and return what it printed and the value of its last expression. Engine: {}. {state} {}",
        python_engine(python),
        world(python)
    );
    let run_javascript = format!(
        "Run JavaScript in a sandbox and return what it logged and the value of its last expression. Engine: QuickJS (modern ECMAScript, top-level await, Node-style `console.log` output; `require` and `import` give only Node's `fs` and `path`, over the files below; no `process`, no `fetch`, no npm packages; `display(svgString)` or `display(pngBytes)` returns an image). {state} {}",
        world(javascript)
    );
    let run_annotations = ToolAnnotations::new()
        .read_only(false)
        .destructive(false)
        .open_world(false);
    vec![
        Tool::new(RUN_PYTHON, run_python, run_input_schema())
            .with_raw_output_schema(run_output_schema())
            .with_annotations(run_annotations.clone()),
        Tool::new(RUN_JAVASCRIPT, run_javascript, run_input_schema())
            .with_raw_output_schema(run_output_schema())
            .with_annotations(run_annotations),
        Tool::new(
            RESET,
            "Discard a sandbox's state (variables, functions, imports): the next call of its language starts in a fresh one.",
            reset_input_schema(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use stockade::Language;

    #[test]
    fn a_cpython_description_names_the_packages_the_session_installs() {
        let options = SessionOptions::new(Language::Python)
            .engine(Interpreter::CPython)
            .packages(vec![
                "pandas==3.1.1".into(),
                "matplotlib>=3.9".into(),
                "scikit-learn".into(),
            ]);
        let text = python_engine(&options);
        assert!(
            text.contains("the packages pandas, matplotlib, scikit-learn")
                && !text.contains("no third-party"),
            "{text}"
        );
        let bare =
            python_engine(&SessionOptions::new(Language::Python).engine(Interpreter::CPython));
        assert!(bare.contains("no third-party packages"), "{bare}");
    }

    #[test]
    fn every_engines_description_names_the_scratch_directory_and_its_size() {
        for options in [
            SessionOptions::new(Language::Python).engine(Interpreter::CPython),
            SessionOptions::new(Language::Python).engine(Interpreter::Monty),
            SessionOptions::new(Language::JavaScript),
        ] {
            let options = options.max_scratch_bytes(64 << 20);
            let text = world(&options);
            assert!(text.contains("/tmp") && text.contains("64 MiB"), "{text}");
            let none = world(&options.max_scratch_bytes(0));
            assert!(!none.contains("/tmp"), "{none}");
        }
    }
}
