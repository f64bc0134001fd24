//! Real npm libraries in real workers: each is loaded from its pinned,
//! test-time installed and bundled build (tests/libraries: `npm ci` then
//! `node bundle.mjs`, which the README's test command runs) and used for one
//! computation whose result is checked, with strict eval off and on.
//! docs/compatibility.md reports the outcome.

use std::path::PathBuf;

use stockade::{Error, JavaScriptOptions, Language, Session, SessionOptions, Value};

/// One library: its bundle, a computation, and what it must give.
struct Case {
    bundle: &'static str,
    check: &'static str,
    expected: &'static str,
    /// Whether the library generates code from strings (so strict eval
    /// must refuse it with an EvalError).
    needs_eval: bool,
}

const CASES: &[Case] = &[
    Case {
        bundle: "lodash",
        check: "JSON.stringify([lodash.chain([3, 1, 2]).sortBy().map((x) => x * 2).value(), lodash.groupBy(['one', 'two', 'three'], 'length')])",
        expected: r#"[[2,4,6],{"3":["one","two"],"5":["three"]}]"#,
        needs_eval: false,
    },
    Case {
        bundle: "d3",
        check: "const s = d3.scaleLinear().domain([0, 10]).range([0, 100]); JSON.stringify([s(2.5), d3.extent([3, 1, 4, 1, 5]), d3.mean([1, 2, 3, 4]), d3.line()([[0, 0], [1, 1], [2, 0]]), d3.arc()({innerRadius: 0, outerRadius: 10, startAngle: 0, endAngle: Math.PI / 2})])",
        expected: r#"[25,[1,5],2.5,"M0,0L1,1L2,0","M0,-10A10,10,0,0,1,10,0L0,0Z"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "dagre",
        check: "const g = new dagre.graphlib.Graph(); g.setGraph({}); g.setDefaultEdgeLabel(() => ({})); for (const n of ['a', 'b', 'c']) g.setNode(n, {width: 50, height: 20}); g.setEdge('a', 'b'); g.setEdge('a', 'c'); dagre.layout(g); const [a, b, c] = ['a', 'b', 'c'].map((n) => g.node(n)); JSON.stringify([a.y < b.y, b.y === c.y, b.x !== c.x, g.edge('a', 'b').points.length > 1])",
        expected: "[true,true,true,true]",
        needs_eval: false,
    },
    Case {
        bundle: "turf",
        check: "const square = turf.polygon([[[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]]); JSON.stringify([Math.round(turf.area(square) / 1e6), Math.round(turf.distance(turf.point([0, 0]), turf.point([0, 1]))), turf.centroid(square).geometry.coordinates, turf.booleanPointInPolygon(turf.point([0.5, 0.5]), square)])",
        expected: "[12364,111,[0.5,0.5],true]",
        needs_eval: false,
    },
    Case {
        bundle: "mathjs",
        check: "JSON.stringify([math.evaluate('sqrt(3^2 + 4^2)'), math.format(math.add(math.fraction(1, 3), math.fraction(1, 6))), math.multiply([[1, 2], [3, 4]], [[5], [6]]), math.evaluate('5 cm + 2 inch to mm').toString()])",
        expected: r#"[5,"1/2",[[17],[39]],"100.8 mm"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "dateFns",
        check: "const start = new Date(Date.UTC(2024, 0, 31)); JSON.stringify([dateFns.format(dateFns.addDays(start, 30), 'yyyy-MM-dd'), dateFns.differenceInCalendarDays(new Date(Date.UTC(2024, 11, 25)), start), dateFns.isLeapYear(start), dateFns.formatISO(dateFns.addMonths(start, 1), {representation: 'date'})])",
        expected: r#"["2024-03-01",329,true,"2024-02-29"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "zod",
        check: "const User = z.object({name: z.string().min(1), age: z.number().int().min(0), tags: z.array(z.string()).default([])}); const good = User.safeParse({name: 'ada', age: 36}); const bad = User.safeParse({name: '', age: -1}); JSON.stringify([good.success, good.data, bad.success, bad.error.issues.map((i) => i.path.join('.'))])",
        expected: r#"[true,{"name":"ada","age":36,"tags":[]},false,["name","age"]]"#,
        needs_eval: false,
    },
    Case {
        bundle: "ajv",
        check: "const ajv = new Ajv(); const validate = ajv.compile({type: 'object', properties: {n: {type: 'integer', minimum: 1}}, required: ['n']}); JSON.stringify([validate({n: 2}), validate({n: 0}), validate({})])",
        expected: "[true,false,false]",
        needs_eval: true,
    },
    Case {
        bundle: "yaml",
        check: "JSON.stringify([YAML.parse('a: 1\\nb: [x, y]\\nc:\\n  d: true\\n'), YAML.stringify({k: [1, 2]})])",
        expected: r#"[{"a":1,"b":["x","y"],"c":{"d":true}},"k:\n  - 1\n  - 2\n"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "marked",
        check: "JSON.stringify(marked.parse('# Title\\n\\nSome *emphasis* and `code`.\\n\\n- one\\n- two\\n'))",
        expected: r#""<h1>Title</h1>\n<p>Some <em>emphasis</em> and <code>code</code>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n""#,
        needs_eval: false,
    },
    Case {
        bundle: "handlebars",
        check: "const t = Handlebars.compile('Hello {{name}}! {{#each items}}[{{this}}]{{/each}}'); JSON.stringify(t({name: '<W>', items: [1, 2]}))",
        expected: r#""Hello &lt;W&gt;! [1][2]""#,
        needs_eval: true,
    },
    Case {
        bundle: "decimal",
        check: "JSON.stringify([new Decimal('0.1').plus('0.2').toString(), new Decimal(2).sqrt().toFixed(20), new Decimal('1e-30').times('3').toString()])",
        expected: r#"["0.3","1.41421356237309504880","3e-30"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "luxon",
        check: "const d = luxon.DateTime.fromISO('2024-02-29T12:00:00Z', {zone: 'utc'}); JSON.stringify([d.plus({years: 1}).toISODate(), d.startOf('week').toISODate(), luxon.Duration.fromObject({hours: 36}).shiftTo('days', 'hours').toObject(), d.toMillis(), d.toFormat('yyyy LLL dd'), d.toLocaleString(luxon.DateTime.DATE_MED)])",
        expected: r#"["2025-02-28","2024-02-26",{"days":1,"hours":12},1709208000000,"2024 Feb 29","Feb 29, 2024"]"#,
        needs_eval: false,
    },
    Case {
        bundle: "echarts",
        check: "const chart = echarts.init(null, null, {renderer: 'svg', ssr: true, width: 400, height: 300}); chart.setOption({animation: false, xAxis: {type: 'category', data: ['a', 'b', 'c']}, yAxis: {type: 'value'}, series: [{type: 'bar', data: [1, 3, 2]}]}); const svg = chart.renderToSVGString(); chart.dispose(); JSON.stringify([svg.startsWith('<svg'), svg.trimEnd().endsWith('</svg>'), (svg.match(/<path/g) || []).length >= 3, svg.includes('width=\"400\"')])",
        expected: "[true,true,true,true]",
        needs_eval: false,
    },
];

fn bundle_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/libraries/dist")
        .join(format!("{name}.js"))
}

fn run_case(case: &Case, strict_eval: bool) -> Result<Value, Error> {
    let path = bundle_path(case.bundle);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "cannot read {}: {err}; install and bundle the suite first (cd crates/stockade/tests/libraries && npm ci && node bundle.mjs; scripts/test does this)",
            path.display()
        )
    });
    let options = SessionOptions::new(Language::JavaScript).javascript(JavaScriptOptions {
        strict_eval,
        web_polyfills: true,
        ..Default::default()
    });
    let mut session = Session::new(options)?;
    session.run(&source)?;
    session.run(case.check)
}

fn check_all(strict_eval: bool) {
    let mut failures = Vec::new();
    for case in CASES {
        let outcome = run_case(case, strict_eval);
        let refused = strict_eval && case.needs_eval;
        let ok = match (&outcome, refused) {
            (Ok(Value::Str(got)), false) => got == case.expected,
            (Err(Error::Guest(guest)), true) => guest.type_name == "EvalError",
            _ => false,
        };
        if !ok {
            let wanted = if refused {
                "an EvalError".to_owned()
            } else {
                case.expected.to_owned()
            };
            failures.push(format!(
                "{} (strict_eval {strict_eval}): expected {wanted}, got {outcome:?}",
                case.bundle
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn npm_libraries_load_and_compute_without_strict_eval() {
    check_all(false);
}

#[test]
fn npm_libraries_load_and_compute_under_strict_eval() {
    check_all(true);
}
