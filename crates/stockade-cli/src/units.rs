//! Sizes and seconds on the command line: read as users write them (512M,
//! 2G, 1.5) and shown, as `--help`'s defaults, from the host library's own
//! constants, so that a flag's default is always the library's.

use std::fmt;
use std::time::Duration;

/// Bytes, written with a binary unit (K, M, G, T: 1024-fold, as every size
/// in the host library and its docs is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

const UNITS: [(&str, u32); 4] = [("T", 40), ("G", 30), ("M", 20), ("K", 10)];

impl fmt::Display for Size {
    /// The largest unit the size is a whole number of (1G, 100M, 4096).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (unit, shift) in UNITS {
            let scale = 1u64 << shift;
            if self.0 != 0 && self.0.is_multiple_of(scale) {
                return write!(f, "{}{unit}", self.0 / scale);
            }
        }
        write!(f, "{}", self.0)
    }
}

/// Seconds, whole or fractional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.subsec_nanos() == 0 {
            write!(f, "{}", self.0.as_secs())
        } else {
            write!(f, "{}", self.0.as_secs_f64())
        }
    }
}

pub fn parse_seconds(text: &str) -> Result<Seconds, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    stockade::duration_from_secs(seconds)
        .map(Seconds)
        .ok_or_else(|| format!("{text:?} must be a positive number of seconds"))
}

/// A size greater than zero: a ceiling or a limit.
pub fn parse_size(text: &str) -> Result<Size, String> {
    match parse_size_or_zero(text)? {
        Size(0) => Err(format!("{text:?}: the size must be greater than zero")),
        size => Ok(size),
    }
}

/// A size, zero included (where zero means none, as `--max-scratch 0`).
pub fn parse_size_or_zero(text: &str) -> Result<Size, String> {
    let upper = text.trim().to_ascii_uppercase();
    let digits_end = upper
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(upper.len());
    let (number, unit) = upper.split_at(digits_end);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 512M or 2G"))?;
    // 2M, 2MB and 2MiB are all two mebibytes; a bare number is bytes.
    let unit = unit.trim();
    let letter = match unit.strip_suffix("IB").or_else(|| unit.strip_suffix('B')) {
        Some(letter) if !(letter.is_empty() && unit == "IB") => letter,
        _ => unit,
    };
    let shift = match letter {
        "" => 0,
        letter => UNITS
            .iter()
            .find(|(name, _)| *name == letter)
            .map(|(_, shift)| *shift)
            .ok_or_else(|| format!("{text:?} has an unknown unit; use K, M, G or T"))?,
    };
    number
        .checked_mul(1u64 << shift)
        .map(Size)
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_shown_reads_back_as_itself() {
        for bytes in [
            1,
            4096,
            1 << 20,
            100 << 20,
            200 << 20,
            64 << 20,
            1 << 30,
            3 << 40,
            1_000_000,
        ] {
            let shown = Size(bytes).to_string();
            assert_eq!(parse_size(&shown), Ok(Size(bytes)), "{shown}");
        }
        assert_eq!(Size(100 << 20).to_string(), "100M");
        assert_eq!(Size(1 << 30).to_string(), "1G");
    }

    #[test]
    fn sizes_read_every_spelling_of_a_unit() {
        for text in ["2m", "2M", "2MB", "2MiB", " 2 M "] {
            assert_eq!(parse_size(text), Ok(Size(2 << 20)), "{text}");
        }
        assert_eq!(parse_size("512"), Ok(Size(512)));
        assert!(parse_size("2X").unwrap_err().contains("unknown unit"));
        assert!(parse_size("M").unwrap_err().contains("not a size"));
        assert!(
            parse_size("99999999999T")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn zero_is_a_size_only_where_it_means_none() {
        assert!(parse_size("0").unwrap_err().contains("greater than zero"));
        assert_eq!(parse_size_or_zero("0"), Ok(Size(0)));
    }

    #[test]
    fn seconds_shown_read_back_as_themselves() {
        for duration in [Duration::from_secs(60), Duration::from_millis(1500)] {
            assert_eq!(
                parse_seconds(&Seconds(duration).to_string()),
                Ok(Seconds(duration))
            );
        }
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("soon").is_err());
    }
}
