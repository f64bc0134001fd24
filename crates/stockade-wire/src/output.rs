//! Rich output: what a guest shows beside its printed text (a chart as
//! PNG, a table as HTML, an SVG drawing), as one MIME type, its bytes and
//! a plain-text form for places that show only text.

/// Longest MIME type an Output may name.
pub const MAX_MIME_TYPE: usize = 255;
/// Longest plain-text form an Output may carry (the rest is cut).
pub const MAX_OUTPUT_TEXT: usize = 64 * 1024;
/// What every output costs of a feed's output budget besides its bytes:
/// what a host spends on one however small (a file written, a content
/// block, a callback), and more than its frame's own framing.
pub const OUTPUT_OVERHEAD: u64 = 256;
/// Most outputs one feed may show; past it the worker sends none.
pub const MAX_OUTPUTS_PER_FEED: u32 = 1000;

/// One rich result a guest showed (`display(obj)`, `plt.show()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// What `data` is: `image/png`, `image/svg+xml`, `text/html`,
    /// `text/plain`, ...
    pub mime_type: String,
    /// The output itself, in that type.
    pub data: Vec<u8>,
    /// A plain-text form of it (a DataFrame's `str`, a figure's
    /// `<Figure size 640x480 with 1 Axes>`), for hosts that show text.
    pub text: String,
}

impl Output {
    /// Bytes this output takes of a feed's output budget: its data, its
    /// text, its type and `OUTPUT_OVERHEAD`, so that no output is free.
    pub fn size(&self) -> u64 {
        (self.data.len() as u64)
            .saturating_add(self.text.len() as u64)
            .saturating_add(self.mime_type.len() as u64)
            .saturating_add(OUTPUT_OVERHEAD)
    }

    /// Whether `mime_type` is a well-formed `type/subtype` (parameters
    /// allowed): printable ASCII without spaces before any `;`, at most
    /// `MAX_MIME_TYPE` bytes. What a host writes to disk is named after
    /// it, so nothing else is let through.
    pub fn valid_mime_type(mime_type: &str) -> bool {
        let essence = mime_type.split(';').next().unwrap_or_default();
        let Some((kind, subtype)) = essence.split_once('/') else {
            return false;
        };
        let token = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
        };
        mime_type.len() <= MAX_MIME_TYPE
            && mime_type.bytes().all(|b| (0x20..0x7f).contains(&b))
            && token(kind)
            && token(subtype)
    }

    /// The file-name extension a host gives this output when it writes it.
    pub fn extension(&self) -> &'static str {
        let essence = self.mime_type.split(';').next().unwrap_or_default().trim();
        match essence.to_ascii_lowercase().as_str() {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/gif" => "gif",
            "image/webp" => "webp",
            "image/svg+xml" => "svg",
            "text/html" => "html",
            "text/markdown" => "md",
            "text/csv" => "csv",
            "application/json" => "json",
            "application/pdf" => "pdf",
            "text/plain" => "txt",
            _ => "bin",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_are_checked_before_anything_is_named_after_them() {
        for good in ["image/png", "text/html; charset=utf-8", "image/svg+xml"] {
            assert!(Output::valid_mime_type(good), "{good}");
        }
        for bad in [
            "",
            "png",
            "image/",
            "/png",
            "../x/y",
            "image/p ng",
            "a/b\n",
            "text/ht\u{e9}ml",
        ] {
            assert!(!Output::valid_mime_type(bad), "{bad:?}");
        }
        assert!(!Output::valid_mime_type(&format!("a/{}", "b".repeat(300))));
    }
}
