//! The guest's `display()` in monty, as the CPython engine has it: each
//! object sent to the host as a rich output beside the printed text, an
//! SVG string as SVG, PNG, JPEG or GIF bytes by their first bytes, anything
//! else as its repr; `mime_type=` sends bytes or text as that type. A host
//! function named `display` is the host's: this one answers only a name
//! the host does not define.

use monty_types::{ExcType, ExtFunctionResult, MontyException, MontyObject};
use stockade_wire::{MAX_OUTPUT_TEXT, Output};
use stockade_worker_core::print::Printer;

/// The name the guest calls.
pub(super) const NAME: &str = "display";

const MAGIC: [(&[u8], &str); 4] = [
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
];

/// Shows each of `args` through `printer`; None, or the error a bad
/// `mime_type` (ValueError, as in CPython) or keyword (TypeError) is.
pub(super) fn display(
    args: &[MontyObject],
    kwargs: &[(MontyObject, MontyObject)],
    printer: &Printer,
) -> ExtFunctionResult {
    let mut mime_type = None;
    for (key, value) in kwargs {
        match (key, value) {
            (MontyObject::String(key), MontyObject::String(mime)) if key == "mime_type" => {
                if !Output::valid_mime_type(mime) {
                    return ExtFunctionResult::Error(MontyException::new(
                        ExcType::ValueError,
                        Some(format!(
                            "display(): {mime:?} is not a MIME type (type/subtype, printable ASCII)"
                        )),
                    ));
                }
                mime_type = Some(mime.clone());
            }
            (MontyObject::String(key), MontyObject::None) if key == "mime_type" => {}
            (MontyObject::String(key), _) if key == "mime_type" => {
                return type_error("display(): mime_type must be a str such as 'image/png'".into());
            }
            (key, _) => {
                return type_error(format!(
                    "display() got an unexpected keyword argument {}",
                    key.py_repr()
                ));
            }
        }
    }
    let mut outputs = Vec::with_capacity(args.len());
    for object in args {
        let output = match &mime_type {
            Some(mime) => match object {
                MontyObject::Bytes(data) => described(mime, data.clone()),
                MontyObject::String(text) => described(mime, text.clone().into_bytes()),
                other => {
                    return type_error(format!(
                        "display(obj, mime_type={mime:?}) takes bytes or str, not {}",
                        other.py_repr()
                    ));
                }
            },
            None => representation(object),
        };
        outputs.push(output);
    }
    for output in outputs {
        printer.show(output);
    }
    ExtFunctionResult::Return(MontyObject::None)
}

/// What `object` is best shown as.
fn representation(object: &MontyObject) -> Output {
    match object {
        MontyObject::Bytes(data) => {
            let mime = MAGIC
                .iter()
                .find(|(magic, _)| data.starts_with(magic))
                .map_or("application/octet-stream", |(_, mime)| mime);
            described(mime, data.clone())
        }
        MontyObject::String(text) => {
            let start: String = text.trim_start().chars().take(256).collect::<String>();
            let start = start.to_lowercase();
            let head: String = text.chars().take(1024).collect();
            let svg =
                start.starts_with("<svg") || (start.starts_with("<?xml") && head.contains("<svg"));
            let mime = if svg { "image/svg+xml" } else { "text/plain" };
            output(mime, text.clone().into_bytes(), object.py_repr())
        }
        other => {
            let text = other.py_repr();
            output("text/plain", text.clone().into_bytes(), text)
        }
    }
}

/// Raw data, whose repr is worth nothing, stood for by a description.
fn described(mime: &str, data: Vec<u8>) -> Output {
    let text = format!("<{mime}, {} bytes>", data.len());
    output(mime, data, text)
}

fn output(mime: &str, data: Vec<u8>, text: String) -> Output {
    let text = text[..text.floor_char_boundary(MAX_OUTPUT_TEXT)].to_owned();
    Output {
        mime_type: mime.to_owned(),
        data,
        text,
    }
}

fn type_error(message: String) -> ExtFunctionResult {
    ExtFunctionResult::Error(MontyException::new(ExcType::TypeError, Some(message)))
}
