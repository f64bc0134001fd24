//! The options table written for people: sizes in binary units, counts
//! with thousands separators, seconds with their unit, names in each
//! binding's case, and docs/options.md, which is this module's output.

use super::options::{Engines, Kind, OptionDefault, OptionSpec, Scope};
use super::table::OPTIONS;

/// Bytes in the largest binary unit they are a whole number of:
/// `64 MiB`, `1 GiB`, `1,000 bytes`.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes != 0 && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", count_text(bytes >> shift));
        }
    }
    match bytes {
        1 => "1 byte".into(),
        _ => format!("{} bytes", count_text(bytes)),
    }
}

/// A whole number with a comma between each three digits: `10,000`.
pub fn count_text(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A number an option of `kind` holds, with its unit.
pub(crate) fn number_text(kind: Kind, n: u64) -> String {
    match kind {
        Kind::Bytes if n == u64::MAX => "2^64 - 1 bytes".into(),
        Kind::Bytes => bytes_text(n),
        _ if n == u64::MAX => "2^64 - 1".into(),
        _ => count_text(n),
    }
}

/// A snake-case option name as Node spells it: `max_result_bytes` is
/// `maxResultBytes`.
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl OptionSpec {
    /// The default as the docs give it, naming another option in the case
    /// `spell` gives (`str::to_owned` for snake case, `camel_case`).
    pub fn default_text(&self, spell: impl Fn(&str) -> String) -> String {
        match self.default {
            OptionDefault::Unset(words) => words.into(),
            OptionDefault::Seconds(duration) => {
                let seconds = duration.as_secs_f64();
                if duration.subsec_nanos() == 0 {
                    format!("{} s", count_text(duration.as_secs()))
                } else {
                    format!("{seconds} s")
                }
            }
            OptionDefault::Bytes(bytes) => bytes_text(bytes),
            OptionDefault::Count(count) => count_text(count),
            OptionDefault::Flag(on) => on.to_string(),
            OptionDefault::Word(word) => word.into(),
            OptionDefault::Follows { option, share: "" } => spell(option),
            OptionDefault::Follows { option, share } => format!("{share} {}", spell(option)),
        }
    }

    /// The range as the docs give it, or empty when the type's own.
    pub fn range_text(&self) -> String {
        let range = match self.range {
            Some((least, most)) if most == u64::MAX || most == u64::from(u32::MAX) => {
                format!("at least {}", number_text(self.kind, least))
            }
            Some((least, most)) => format!(
                "{} to {}",
                number_text(self.kind, least),
                number_text(self.kind, most)
            ),
            None if self.kind == Kind::Seconds => "above 0".into(),
            None => String::new(),
        };
        match self.zero {
            Some(meaning) => format!("{range}; 0: {meaning}"),
            None => range,
        }
    }
}

fn kind_text(kind: Kind) -> String {
    match kind {
        Kind::Seconds => "seconds".into(),
        Kind::Bytes => "bytes".into(),
        Kind::Count => "count".into(),
        Kind::Flag => "bool".into(),
        Kind::Text => "text".into(),
        Kind::Word(words) => words
            .iter()
            .map(|word| format!("`{word}`"))
            .collect::<Vec<_>>()
            .join(", "),
        Kind::Texts => "list of texts".into(),
        Kind::Pairs => "names to texts".into(),
        Kind::Clock => "`real`, or seconds since the epoch".into(),
    }
}

fn scope_text(spec: &OptionSpec) -> &'static str {
    match spec.scope {
        Scope::Worker => "worker",
        Scope::Session => "session",
        Scope::Checkout => "checkout",
        Scope::Remote => "remote",
    }
}

fn spellings(spec: &OptionSpec) -> String {
    let python = if spec.limit {
        format!("`Limits({}=)`", spec.name)
    } else {
        format!("`{}=`", spec.name)
    };
    let node = if spec.limit {
        format!("`limits.{}`", camel_case(spec.name))
    } else {
        format!("`{}`", camel_case(spec.name))
    };
    let mut out = format!("{python}, {node}");
    if let Some(flag) = spec.cli_flag {
        out.push_str(&format!(", `{flag}`"));
    }
    out
}

/// docs/options.md: the table, as `the_options_page_is_the_tables` holds
/// the file to.
pub fn options_page() -> String {
    let mut page = String::from(
        "# Options\n\n\
         <!-- Generated from crates/stockade/src/contract/table.rs; edit that table, then run\n     \
         STOCKADE_REGENERATE=1 cargo test --release -p stockade --test contract -->\n\n\
         Every option a session takes, declared once in the host library. The\n\
         Rust builders, Python's keyword arguments and `Limits`, Node's options\n\
         and `limits` (the same names in camel case) and the CLI's flags take\n\
         these names, with these defaults and ranges; tests fail when one of\n\
         them, or [limits.md](limits.md), disagrees. Sizes are in binary units (1 KiB is\n\
         1,024 bytes), times in seconds. What each limit's caller sees when it\n\
         is passed is in [limits.md](limits.md).\n\n\
         Scope: **worker** options are fixed when a worker starts (a pool sets\n\
         them for all its workers, and sessions share prestarted workers only\n\
         when they agree); **checkout** options are the host's, per turn, and a\n\
         pool's checkout may set its own; **session** options are the host's\n\
         for the whole session; **remote** options say where the worker runs.\n\
         A server of sessions holds the options marked *ceiling* to its own,\n\
         set by the `stockade serve` flag named.\n\n\
         | option | takes | default | range | scope | engines | Python, Node, CLI | what it is |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for spec in OPTIONS {
        let engines = match spec.engines {
            Engines::All => "all",
            Engines::CPython => "cpython",
            Engines::JavaScript => "quickjs",
        };
        let scope = match spec.server_ceiling {
            Some(flag) => format!("{}, ceiling (`stockade serve {flag}`)", scope_text(spec)),
            None => scope_text(spec).into(),
        };
        page.push_str(&format!(
            "| `{}` | {} | {} | {} | {scope} | {engines} | {} | {} |\n",
            spec.name,
            kind_text(spec.kind),
            spec.default_text(str::to_owned),
            spec.range_text(),
            spellings(spec),
            spec.doc.replace('|', "\\|"),
        ));
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_are_written_as_the_docs_write_them() {
        assert_eq!(bytes_text(64 << 20), "64 MiB");
        assert_eq!(bytes_text(1 << 30), "1 GiB");
        assert_eq!(bytes_text(100 << 20), "100 MiB");
        assert_eq!(bytes_text(64 * 1024), "64 KiB");
        assert_eq!(bytes_text(1), "1 byte");
        assert_eq!(bytes_text(1000), "1,000 bytes");
        assert_eq!(count_text(10_000), "10,000");
        assert_eq!(count_text(1_000), "1,000");
        assert_eq!(count_text(64), "64");
        assert_eq!(count_text(1_234_567), "1,234,567");
        assert_eq!(
            camel_case("max_inflight_host_calls"),
            "maxInflightHostCalls"
        );
        assert_eq!(camel_case("remote_ca"), "remoteCa");
    }
}
