//! Rich outputs (docs/data.md, "Outputs"): from CPython guests,
//! `display()` and matplotlib figures, and from JavaScript guests
//! `display()`, reach the host as a MIME type plus bytes, in
//! order with the guest's prints, within the feed's output budget; what
//! does not fit, or what a host does not take, is said on stderr and the
//! session lives. The packages come through the package layer
//! (`STOCKADE_UV`, which scripts/test sets).

use std::sync::{Arc, Mutex};

use stockade::{
    Error, Interpreter, Language, Output, PrintStream, RunLimits, SandboxMode, Session,
    SessionOptions, Value,
};

/// What the PyData tests import, pinned as in the data corpus.
const PLOTTING: &[&str] = &[
    "numpy==2.4.6",
    "pandas==3.1.1",
    "matplotlib==3.11.2",
    "pillow==13.0.0",
];

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

fn options(packages: &[&str]) -> SessionOptions {
    let options = SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .sandbox(SandboxMode::Require);
    if packages.is_empty() {
        return options;
    }
    assert!(
        std::env::var_os("STOCKADE_UV").is_some(),
        "these tests install packages with uv: set STOCKADE_UV (scripts/test sets it to .venv/bin/uv)"
    );
    options.packages(packages.iter().map(|p| (*p).to_owned()).collect())
}

/// What the host heard, in order.
#[derive(Clone, PartialEq)]
enum Heard {
    Out(String),
    Err(String),
    Shown(Output),
}

/// An output by its type and size: its bytes would fill a failure's report.
impl std::fmt::Debug for Heard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Heard::Out(text) => write!(f, "Out({text:?})"),
            Heard::Err(text) => write!(f, "Err({text:?})"),
            Heard::Shown(o) => write!(
                f,
                "Shown({}, {} bytes, {:?})",
                o.mime_type,
                o.data.len(),
                o.text
            ),
        }
    }
}

type Log = Arc<Mutex<Vec<Heard>>>;

/// A session whose prints and outputs go into one log, in arrival order.
fn listening(options: SessionOptions) -> (Session, Log) {
    let mut session = Session::new(options).expect("starts");
    let log: Log = Arc::default();
    let prints = Arc::clone(&log);
    session.on_print(move |stream, text| {
        let mut log = prints.lock().unwrap();
        // Adjacent text of one stream is one entry: how the worker cut it
        // into frames is not what is tested.
        match (stream, log.last_mut()) {
            (PrintStream::Stdout, Some(Heard::Out(last))) => last.push_str(text),
            (PrintStream::Stderr, Some(Heard::Err(last))) => last.push_str(text),
            (PrintStream::Stdout, _) => log.push(Heard::Out(text.to_owned())),
            (PrintStream::Stderr, _) => log.push(Heard::Err(text.to_owned())),
        }
    });
    let outputs = Arc::clone(&log);
    session.on_output(move |output| outputs.lock().unwrap().push(Heard::Shown(output)));
    (session, log)
}

fn taken(log: &Log) -> Vec<Heard> {
    std::mem::take(&mut *log.lock().unwrap())
}

fn shown(heard: &[Heard]) -> Vec<&Output> {
    heard
        .iter()
        .filter_map(|h| match h {
            Heard::Shown(output) => Some(output),
            _ => None,
        })
        .collect()
}

fn stderr(heard: &[Heard]) -> String {
    heard
        .iter()
        .filter_map(|h| match h {
            Heard::Err(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// (width, height) of a PNG, from its IHDR chunk.
fn png_size(data: &[u8]) -> (u32, u32) {
    assert!(data.starts_with(PNG_MAGIC), "not a PNG");
    let word = |at: usize| u32::from_be_bytes(data[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn plt_show_sends_each_open_figure_as_a_png_in_order_with_the_prints() {
    let (mut session, log) = listening(options(PLOTTING));
    let code = "import matplotlib.pyplot as plt\n\
        print('before')\n\
        plt.plot([1, 3, 2])\n\
        plt.figure(figsize=(3, 2))\n\
        plt.bar(['a', 'b'], [2, 5])\n\
        plt.show()\n\
        print('after')\n\
        len(plt.get_fignums())";
    assert_eq!(
        session.run(code).unwrap(),
        Value::Int(0),
        "show() closes them"
    );
    let heard = taken(&log);
    let [
        Heard::Out(before),
        Heard::Shown(first),
        Heard::Shown(second),
        Heard::Out(after),
    ] = &heard[..]
    else {
        panic!("{heard:?}")
    };
    assert_eq!((before.as_str(), after.as_str()), ("before\n", "after\n"));
    for figure in [first, second] {
        assert_eq!(figure.mime_type, "image/png");
        assert!(figure.text.starts_with("<Figure size"), "{}", figure.text);
    }
    // Each is a real drawing of its own size (the second is 3 x 2 inches).
    let (w1, h1) = png_size(&first.data);
    let (w2, h2) = png_size(&second.data);
    assert!(w1 > w2 && h1 > h2, "{w1}x{h1} then {w2}x{h2}");
    assert!(w2 > 100 && h2 > 50, "{w2}x{h2}");
}

#[test]
fn figures_still_open_when_a_feed_ends_are_sent_once_as_a_notebook_shows_them() {
    let (mut session, log) = listening(options(PLOTTING));
    // No show(): the figure drawn is sent when the feed ends, and the
    // feed's last line (a list of artists) comes back as their reprs.
    let ended =
        session.run("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])");
    assert!(
        matches!(&ended, Ok(Value::List(items)) if matches!(&items[..], [Value::Repr(text)] if text.contains("Line2D"))),
        "{ended:?}"
    );
    let heard = taken(&log);
    assert_eq!(shown(&heard).len(), 1, "{heard:?}");
    assert_eq!(shown(&heard)[0].mime_type, "image/png");
    // It was closed after it was sent: the next feed sends nothing again.
    assert_eq!(
        session.run("len(plt.get_fignums())").unwrap(),
        Value::Int(0)
    );
    assert!(shown(&taken(&log)).is_empty());
    // A figure shown with display() in a feed is not sent twice by its end.
    session
        .run("fig = plt.figure()\nplt.plot([3, 1])\ndisplay(fig)\nprint('shown')")
        .unwrap();
    let heard = taken(&log);
    assert_eq!(shown(&heard).len(), 1, "{heard:?}");
    // A feed that fails still shows what it drew.
    let failed = session.run("plt.plot([1, 2])\nraise ValueError('late')");
    assert!(matches!(failed, Err(Error::Guest(_))), "{failed:?}");
    assert_eq!(shown(&taken(&log)).len(), 1);
}

#[test]
fn display_sends_a_dataframe_as_html_with_its_text_and_an_image_as_png() {
    let (mut session, log) = listening(options(PLOTTING));
    let code = "import pandas as pd\n\
        from PIL import Image\n\
        df = pd.DataFrame({'city': ['Oslo', 'Lima'], 'sales': [3, 5]})\n\
        display(df)\n\
        display(Image.new('RGB', (40, 30), 'red'))\n\
        Image.new('L', (8, 9)).show()";
    session.run(code).unwrap();
    let heard = taken(&log);
    let outputs = shown(&heard);
    assert_eq!(outputs.len(), 3, "{heard:?}");
    let table = outputs[0];
    assert_eq!(table.mime_type, "text/html");
    let html = String::from_utf8(table.data.clone()).unwrap();
    assert!(html.contains("<table") && html.contains("Oslo"), "{html}");
    assert!(
        table.text.contains("Lima") && table.text.contains("sales"),
        "{}",
        table.text
    );
    assert_eq!(outputs[1].mime_type, "image/png");
    assert_eq!(png_size(&outputs[1].data), (40, 30));
    // PIL's Image.show() has no viewer in the sandbox: it shows the image.
    assert_eq!(png_size(&outputs[2].data), (8, 9));
}

#[test]
fn display_of_plain_python_values_picks_their_type() {
    let (mut session, log) = listening(options(&[]));
    let code = r#"
class Card:
    def _repr_html_(self):
        return "<b>ace</b>"
    def __repr__(self):
        return "Card(ace)"

display("<svg xmlns='http://www.w3.org/2000/svg'><circle r='4'/></svg>")
display(b"\x89PNG\r\n\x1a\n" + bytes(8))
display(Card(), {"a": 1})
display('{"k": [1, 2]}', mime_type="application/json")
try:
    display("x", mime_type="../../etc/passwd")
except ValueError as err:
    print("refused:", err)
"#;
    session.run(code).unwrap();
    let heard = taken(&log);
    let outputs = shown(&heard);
    let types: Vec<&str> = outputs.iter().map(|o| o.mime_type.as_str()).collect();
    assert_eq!(
        types,
        [
            "image/svg+xml",
            "image/png",
            "text/html",
            "text/plain",
            "application/json"
        ],
        "{heard:?}"
    );
    assert_eq!(outputs[2].data, b"<b>ace</b>");
    assert_eq!(outputs[2].text, "Card(ace)");
    assert_eq!(outputs[3].data, b"{'a': 1}");
    assert_eq!(outputs[4].data, br#"{"k": [1, 2]}"#);
    let printed: String = heard
        .iter()
        .filter_map(|h| match h {
            Heard::Out(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(printed.starts_with("refused: "), "{printed}");
    assert!(printed.contains("is not a MIME type"), "{printed}");
}

#[test]
fn outputs_count_toward_max_output_bytes_and_one_past_it_is_noted_on_stderr() {
    let mut options = options(&[]);
    options.limits.max_output_bytes = 10_000;
    let (mut session, log) = listening(options);
    let code = "display(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(6000))\n\
        display(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(6000))\n\
        print('still here')";
    session.run(code).unwrap();
    let heard = taken(&log);
    assert_eq!(shown(&heard).len(), 1, "{heard:?}");
    let note = stderr(&heard);
    assert!(
        note.contains("an output (image/png, 6008 bytes) was not shown")
            && note.contains("max_output_bytes (10000"),
        "{note}"
    );
    assert!(
        matches!(heard.last(), Some(Heard::Out(text)) if text == "still here\n"),
        "{heard:?}"
    );
    // The budget is the feed's: the next feed shows again.
    session
        .run("display(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(6000))")
        .unwrap();
    assert_eq!(shown(&taken(&log)).len(), 1);
}

#[test]
fn an_output_past_max_result_bytes_is_read_past_and_noted_and_the_guest_goes_on() {
    let (mut session, log) = listening(options(&[]));
    let limits = RunLimits {
        max_result_bytes: Some(4096),
    };
    let code = "display(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(100_000))\nprint('went on')\n7";
    let value = session.run_with_limits(code, Vec::new(), limits).unwrap();
    assert_eq!(value, Value::Int(7));
    let heard = taken(&log);
    assert!(shown(&heard).is_empty(), "{heard:?}");
    assert!(
        stderr(&heard).contains("would pass max_result_bytes (4096 bytes)"),
        "{heard:?}"
    );
    assert!(matches!(heard.last(), Some(Heard::Out(text)) if text == "went on\n"));
}

#[test]
fn a_host_that_takes_no_outputs_hears_of_each_on_stderr() {
    let mut session = Session::new(options(&[])).expect("starts");
    let err = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&err);
    session.on_print(move |stream, text| {
        if stream == PrintStream::Stderr {
            sink.lock().unwrap().push_str(text);
        }
    });
    session.run("display('<svg></svg>')").unwrap();
    let err = err.lock().unwrap().clone();
    assert!(
        err.contains("showed an output (image/svg+xml, 11 bytes), which this host does not take"),
        "{err}"
    );
}

#[test]
fn a_monty_guest_displays_svg_strings_bytes_and_values_and_a_hosts_display_comes_first() {
    let monty = || SessionOptions::new(Language::Python).engine(stockade::Interpreter::Monty);
    let (mut session, log) = listening(monty());
    let code = r#"
print("before")
display("<svg xmlns='http://www.w3.org/2000/svg'><rect width='2' height='2'/></svg>")
show = display
show(b"\x89PNG\r\n\x1a\n\x01\x02", {"rows": 3})
display("<b>bold</b>", mime_type="text/html")
print("after")
try:
    display("x", mime_type="../../etc/passwd")
    refused = "shown"
except ValueError as err:
    refused = str(err)
refused
"#;
    let value = session.run(code).unwrap();
    assert!(
        matches!(&value, Value::Str(text) if text.contains("is not a MIME type")),
        "{value:?}"
    );
    let heard = taken(&log);
    let order: Vec<String> = heard
        .iter()
        .map(|h| match h {
            Heard::Out(text) => format!("out {text:?}"),
            Heard::Err(text) => format!("err {text:?}"),
            Heard::Shown(output) => format!("shown {}", output.mime_type),
        })
        .collect();
    assert_eq!(
        order,
        [
            r#"out "before\n""#,
            "shown image/svg+xml",
            "shown image/png",
            "shown text/plain",
            "shown text/html",
            r#"out "after\n""#,
        ]
    );
    let outputs = shown(&heard);
    assert_eq!(
        outputs[0].data,
        b"<svg xmlns='http://www.w3.org/2000/svg'><rect width='2' height='2'/></svg>"
    );
    assert_eq!(outputs[1].text, "<image/png, 10 bytes>");
    assert_eq!(outputs[2].data, b"{'rows': 3}");
    assert_eq!(outputs[3].data, b"<b>bold</b>");

    // A host function named display is the host's.
    let (mut session, log) = listening(monty());
    session.register_function("display", |_| Ok(Value::Str("the host's".into())));
    assert_eq!(session.run("display(1)").unwrap(), s("the host's"));
    assert!(shown(&taken(&log)).is_empty());
}

#[test]
fn a_javascript_guest_displays_svg_strings_bytes_and_values() {
    let (mut session, log) = listening(SessionOptions::new(Language::JavaScript));
    let code = r#"
console.log("before");
display("<svg xmlns='http://www.w3.org/2000/svg'><rect width='2' height='2'/></svg>");
display(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]));
display({ rows: 3, cols: ["a", "b"] });
display("<b>bold</b>", "text/html");
let refused;
try { display("x", "not a type"); } catch (err) { refused = `${err.name}: ${err.message}`; }
refused
"#;
    let value = session.run(code).unwrap();
    assert!(
        matches!(&value, Value::Str(text) if text.starts_with("TypeError:") && text.contains("is not a MIME type")),
        "{value:?}"
    );
    let heard = taken(&log);
    assert!(
        matches!(heard.first(), Some(Heard::Out(text)) if text == "before\n"),
        "{heard:?}"
    );
    let outputs = shown(&heard);
    let summary: Vec<(&str, &[u8])> = outputs
        .iter()
        .map(|o| (o.mime_type.as_str(), o.data.as_slice()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "image/svg+xml",
                &b"<svg xmlns='http://www.w3.org/2000/svg'><rect width='2' height='2'/></svg>"[..]
            ),
            ("image/png", &b"\x89PNG\r\n\x1a\n\x01\x02"[..]),
            ("text/plain", &b"{ rows: 3, cols: [ 'a', 'b' ] }"[..]),
            ("text/html", &b"<b>bold</b>"[..]),
        ]
    );
    assert_eq!(outputs[1].text, "<image/png, 10 bytes>");
}

#[test]
fn every_output_costs_its_overhead_and_a_feed_shows_at_most_a_thousand() {
    let (mut session, log) = listening(options(&[]));
    // Empty outputs are not free: each costs 256 bytes and one of the
    // feed's thousand; past that the worker sends none, says so once per
    // output left out, and the guest goes on.
    let value = session
        .run("for _ in range(1005):\n    display(b'')\n'went on'")
        .unwrap();
    assert_eq!(value, s("went on"));
    let heard = taken(&log);
    assert_eq!(shown(&heard).len(), 1000);
    assert!(
        stderr(&heard).contains("a feed shows at most 1000 outputs"),
        "{}",
        stderr(&heard)
    );
    // A feed of its own has its own thousand.
    session.run("display(b'')").unwrap();
    assert_eq!(shown(&taken(&log)).len(), 1);
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}
