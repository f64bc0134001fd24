//! Protocol versions: which the parent speaks, which the worker serves.

/// The protocol version this build speaks. Version 2 carries the engine's
/// own configuration in Configure (version 1 carried a JavaScript
/// configuration for every language); version 3 adds the CPython engine
/// (engine code 2), so a version-2 Configure means the same to it; version
/// 4 adds Snapshot and Restore (and their replies Image and Restored),
/// which a parent sends only to a worker that declared version 4 or later;
/// version 5 adds the CPython scratch directory's size to its
/// configuration; version 6 adds Output, which a worker sends only to a
/// parent that declared 6 or later.
pub const PROTOCOL_VERSION: u32 = 6;
/// The oldest protocol version a worker of this build still serves.
pub const MIN_SUPPORTED_PROTOCOL_VERSION: u32 = 2;

/// Checks a parent's declared version against the supported range.
///
/// Version 0 means "declared nothing" and is always refused. The error text
/// names the range so that a parent can downgrade and retry.
pub fn check_protocol_version(declared: u32) -> Result<(), String> {
    if declared == 0 || !(MIN_SUPPORTED_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&declared) {
        let what = if declared == 0 {
            "0 (no version declared)".to_owned()
        } else {
            declared.to_string()
        };
        return Err(format!(
            "unsupported protocol version {what}: this worker serves versions \
             {MIN_SUPPORTED_PROTOCOL_VERSION}..={PROTOCOL_VERSION}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_zero_is_refused_naming_the_range() {
        let err = check_protocol_version(0).unwrap_err();
        assert!(err.contains("2..=6"), "{err}");
        assert!(err.contains("no version declared"), "{err}");
    }

    #[test]
    fn versions_outside_the_range_are_refused() {
        assert!(check_protocol_version(PROTOCOL_VERSION + 1).is_err());
        assert!(check_protocol_version(PROTOCOL_VERSION).is_ok());
    }

    #[test]
    fn a_version_2_parent_is_still_served() {
        assert!(check_protocol_version(2).is_ok());
    }
}
