//! A call's result as a tool result: structured content (the fields a
//! program reads) and the same as text (what a model reads), then the
//! guest's rich outputs: images as image content, tables and other text
//! as text.

use base64::Engine as _;
use rmcp::model::ContentBlock;
use serde::Serialize;
use stockade::{Error, Output, Value};

use crate::sessions::{Ran, capped};

/// The structured content of `run_python` and `run_javascript`; its schema
/// is `tools::run_output_schema`.
#[derive(Debug, Serialize)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// The repr of the code's last expression (as Python shows it, or as
    /// Node's `util.inspect` does for JavaScript), cut at 64 KiB; absent
    /// when it has none (None, undefined) or the call failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The exception's class when the guest raised (`ValueError`,
    /// `TypeError`), or the limit or failure that stopped the call
    /// (`TimeLimitError`, `MemoryLimitError`, `WorkerCrashed`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The guest's traceback, when it raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traceback: Option<String>,
    /// Whether the sandbox's state carries on to the next call: false when
    /// this call lost its session (the next starts afresh).
    pub state_kept: bool,
    /// Set when this call ran in a fresh sandbox because the previous one
    /// was lost: why, and that earlier variables are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The rich outputs the guest showed, each by its type, size and text
    /// form; the outputs themselves follow the text in the content.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<OutputSummary>,
    #[serde(skip)]
    shown: Vec<Output>,
}

/// One rich output as the structured content lists it.
#[derive(Debug, Serialize)]
pub struct OutputSummary {
    pub mime_type: String,
    pub bytes: usize,
    pub text: String,
}

/// Image types MCP clients show as images.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// An output as content: an image as image content (base64), HTML as its
/// text form (a DataFrame's table reads better so than as markup), other
/// text (SVG, JSON, markdown) as itself, anything else as its text form.
fn content_of(output: &Output) -> ContentBlock {
    let essence = output
        .mime_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim();
    if IMAGE_TYPES.contains(&essence) {
        let data = base64::engine::general_purpose::STANDARD.encode(&output.data);
        return ContentBlock::image(data, essence);
    }
    let textual =
        essence.starts_with("text/") || essence.ends_with("+xml") || essence.ends_with("/json");
    let shown = match std::str::from_utf8(&output.data) {
        Ok(text) if textual && essence != "text/html" => capped(text),
        _ => capped(&output.text),
    };
    ContentBlock::text(format!("output ({}):\n{shown}", output.mime_type))
}

impl RunOutput {
    pub fn from_ran(ran: Ran) -> Self {
        let note = ran.replaced.map(|why| {
            format!(
                "the previous sandbox was lost ({why}); this call ran in a fresh one, so variables and imports from earlier calls are gone"
            )
        });
        let (result, error_type, error_message, traceback) = match &ran.outcome {
            Ok(Value::None | Value::Undefined) => (None, None, None, None),
            // Cut as the streams are: it crosses twice (text and structured).
            Ok(value) => (Some(capped(&value.to_string())), None, None, None),
            Err(err) => {
                let (message, traceback) = match err {
                    Error::Guest(guest) | Error::Syntax(guest) => (
                        guest.message.clone(),
                        Some(guest.traceback.trim_end().to_owned()).filter(|t| !t.is_empty()),
                    ),
                    other => (other.to_string(), None),
                };
                (
                    None,
                    Some(err.error_type().to_owned()),
                    Some(message),
                    traceback,
                )
            }
        };
        RunOutput {
            stdout: ran.stdout,
            stderr: ran.stderr,
            result,
            error_type,
            error_message,
            traceback,
            state_kept: !ran.lost,
            note,
            outputs: ran
                .outputs
                .iter()
                .map(|output| OutputSummary {
                    mime_type: output.mime_type.clone(),
                    bytes: output.data.len(),
                    text: capped(&output.text),
                })
                .collect(),
            shown: ran.outputs,
        }
    }

    /// The content blocks of the rich outputs, in order.
    pub fn output_content(&self) -> Vec<ContentBlock> {
        self.shown.iter().map(content_of).collect()
    }

    /// Whether the call failed (the tool result's `isError`).
    pub fn failed(&self) -> bool {
        self.error_type.is_some()
    }

    /// The same content as text, for a model to read.
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(note) = &self.note {
            parts.push(format!("Note: {note}."));
        }
        if !self.stdout.is_empty() {
            parts.push(format!("stdout:\n{}", self.stdout.trim_end_matches('\n')));
        }
        if !self.stderr.is_empty() {
            parts.push(format!("stderr:\n{}", self.stderr.trim_end_matches('\n')));
        }
        if let Some(result) = &self.result {
            parts.push(format!("result: {result}"));
        }
        if let (Some(kind), Some(message)) = (&self.error_type, &self.error_message) {
            match &self.traceback {
                Some(traceback) => parts.push(format!("error: {kind}\n{traceback}")),
                None => parts.push(format!("error: {kind}: {message}")),
            }
        }
        if !self.state_kept {
            parts.push(
                "The sandbox was lost with this call; the next call starts a fresh one.".into(),
            );
        }
        if parts.is_empty() {
            parts.push("(no output and no result)".into());
        }
        parts.join("\n\n")
    }
}
