//! The native half of the guest's `display()` (js/display.js): a rich
//! output sent to the host after what was printed before it.

use std::rc::Rc;

use rquickjs::{Ctx, TypedArray, Value as JsValue};
use stockade_wire::{MAX_OUTPUT_TEXT, Output};

use super::bridge::Bridge;

/// `show(mimeType, data, text)`: data is a string (sent as UTF-8) or a
/// Uint8Array; a MIME type that is not `type/subtype` is a TypeError.
pub fn show_function(
    bridge: Rc<Bridge>,
) -> impl for<'js> Fn(Ctx<'js>, String, JsValue<'js>, String) -> rquickjs::Result<()> {
    move |ctx, mime_type, data, text| {
        if !Output::valid_mime_type(&mime_type) {
            return Err(rquickjs::Exception::throw_type(
                &ctx,
                &format!("{mime_type:?} is not a MIME type (type/subtype, printable ASCII)"),
            ));
        }
        let data = if let Some(text) = data.as_string() {
            text.to_string()?.into_bytes()
        } else {
            let bytes = TypedArray::<u8>::from_value(data)?;
            // SAFETY: the slice is copied at once; no JavaScript runs (so
            // nothing can detach or resize the buffer) while it is held.
            unsafe { bytes.as_bytes() }
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        };
        let text = text[..text.floor_char_boundary(MAX_OUTPUT_TEXT)].to_owned();
        if let Some(link) = bridge.link() {
            link.borrow().printer.show(Output {
                mime_type,
                data,
                text,
            });
        }
        Ok(())
    }
}
