//! How many templates one host process keeps (docs/security.md, "Workers
//! forked from a template"): its own test binary, so that no other test's
//! templates are counted.

use std::time::Duration;

use stockade::{Language, Session, SessionOptions, Value};

/// This process's live children started as templates of the light worker.
fn templates() -> usize {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            // A worker a template forked has its command line too; its
            // one thread is the template's session thread's copy.
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            cmdline
                .split(|b| *b == 0)
                .any(|arg| arg == stockade_wire::TEMPLATE_FLAG.as_bytes())
                && name.trim() != "session"
                && !status.contains("State:\tZ")
                && status
                    .lines()
                    .any(|l| l.strip_prefix("PPid:").map(str::trim) == Some(me.as_str()))
        })
        .count()
}

#[test]
fn a_process_keeps_at_most_four_templates_the_least_recently_used_ending_first() {
    // Six sets of options (each its own Configure), so six templates in turn.
    let mut sessions: Vec<Session> = (0..6)
        .map(|i| {
            let options =
                SessionOptions::new(Language::JavaScript).max_duration(Duration::from_secs(10 + i));
            Session::new(options).expect("starts")
        })
        .collect();
    assert_eq!(templates(), 4);
    // Every session works, those of evicted templates too (a worker does
    // not need its template once forked).
    for session in &mut sessions {
        assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
    }
    // The first options again: their template was let go, and starts anew
    // in place of the least recently used one.
    let mut again = Session::new(
        SessionOptions::new(Language::JavaScript).max_duration(Duration::from_secs(10)),
    )
    .expect("starts");
    assert_eq!(again.run("2 + 2").unwrap(), Value::Int(4));
    assert_eq!(templates(), 4);
}
