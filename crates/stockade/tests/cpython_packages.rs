//! Packages for CPython guests (docs/data.md, "Packages"): installed on the
//! host by uv, wheels only, into a read-only, content-addressed cache that
//! later sessions reuse; the guest imports them under `require` and never
//! has the network. The test command points `STOCKADE_UV` at the uv that
//! scripts/dist installed; the index is PyPI, cached by uv where the
//! machine keeps its cache.

use std::path::PathBuf;

use stockade::{
    ConfigurationKind, Error, Interpreter, Language, Pool, PoolOptions, SandboxMode, Session,
    SessionOptions, Value,
};

fn options(packages: &[&str]) -> SessionOptions {
    assert!(
        std::env::var_os("STOCKADE_UV").is_some(),
        "these tests install packages with uv: set STOCKADE_UV (scripts/test sets it to .venv/bin/uv)"
    );
    SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .sandbox(SandboxMode::Require)
        .packages(packages.iter().map(|p| (*p).to_owned()).collect())
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

#[test]
fn a_sessions_packages_are_installed_on_the_host_once_and_imported_read_only() {
    let mut session = Session::new(options(&["tabulate==0.10.0"])).expect("starts");
    let code =
        "import tabulate\n[tabulate.__version__, tabulate.tabulate([[1, 2]], headers=['a', 'b'])]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![s("0.10.0"), s("  a    b\n---  ---\n  1    2")])
    );
    // The installed tree is read-only: neither the guest nor a later
    // session changes it.
    let dir = session
        .run("import os\nos.path.dirname(os.path.dirname(tabulate.__file__))")
        .unwrap();
    let Value::Str(dir) = dir else {
        panic!("a directory")
    };
    let write = format!("open({:?} + '/tabulate/x.py', 'w')", dir);
    assert!(matches!(session.run(&write), Err(Error::Guest(_))));
    let complete = PathBuf::from(&dir).with_file_name("complete");
    let marked = std::fs::metadata(&complete).unwrap().modified().unwrap();
    let meta = std::fs::metadata(PathBuf::from(&dir).join("tabulate/__init__.py")).unwrap();
    assert!(meta.permissions().readonly(), "{dir} is writable");
    // A second session with the same requirements (in another order, with
    // a repeat) is shown the same directory, installed once.
    let mut again =
        Session::new(options(&[" tabulate==0.10.0", "tabulate==0.10.0"])).expect("starts");
    let code = "import os, tabulate\nos.path.dirname(os.path.dirname(tabulate.__file__))";
    assert_eq!(again.run(code).unwrap(), Value::Str(dir));
    assert_eq!(
        std::fs::metadata(&complete).unwrap().modified().unwrap(),
        marked
    );
}

#[test]
fn a_package_the_index_cannot_give_is_a_configuration_error_naming_it() {
    let missing = "stockade-test-no-such-package==1.0";
    match Session::new(options(&[missing])) {
        Err(Error::Configuration(err)) => {
            assert_eq!(err.kind(), ConfigurationKind::PackagesUnavailable, "{err}");
            let text = err.to_string();
            assert!(
                text.contains(missing) && text.contains("package index"),
                "{text}"
            );
        }
        other => panic!("a missing package started a session: {other:?}"),
    }
}

#[test]
fn requirements_that_are_urls_paths_or_options_are_refused_before_anything_runs() {
    for bad in [
        "pkg @ https://example.com/pkg-1.0-py3-none-any.whl",
        "./pkg",
        "--index-url=http://127.0.0.1:9/simple",
        "-e .",
    ] {
        match Session::new(options(&[bad])) {
            Err(Error::Configuration(err)) => {
                assert_eq!(err.kind(), ConfigurationKind::InvalidOption, "{bad}: {err}");
            }
            other => panic!("{bad:?} was not refused: {other:?}"),
        }
    }
    let monty = options(&["tabulate"]).engine(Interpreter::Monty);
    match Session::new(monty) {
        Err(Error::Configuration(err)) => {
            assert!(err.to_string().contains("cpython"), "{err}")
        }
        other => panic!("packages on monty were not refused: {other:?}"),
    }
}

#[test]
fn preloaded_modules_are_found_imported_by_every_checkout_and_their_native_code_runs() {
    let options = options(&["numpy==2.4.6", "pandas==3.1.1"]).preload(vec!["pandas".into()]);
    let pool = Pool::new(
        options,
        PoolOptions {
            size: 2,
            ..PoolOptions::default()
        },
    )
    .expect("the pool starts");
    // Each checkout finds pandas imported already, and numpy's BLAS (whose
    // thread pool a forked worker could not have) multiplies in it.
    let code = "import sys\nloaded = 'pandas' in sys.modules\n\
        import numpy as np, pandas as pd\n\
        df = pd.DataFrame({'k': [1, 1, 2], 'v': [1, 2, 3]})\n\
        [loaded, int(df.groupby('k').v.sum().sum()), float((np.ones((400, 400)) @ np.ones((400, 400)))[0, 0])]";
    for _ in 0..3 {
        let mut session = pool.checkout().expect("a checkout");
        assert_eq!(
            session.run(code).unwrap(),
            Value::List(vec![Value::Bool(true), Value::Int(6), Value::Float(400.0)])
        );
    }
}

#[test]
fn a_module_that_cannot_be_preloaded_fails_the_start_naming_it() {
    let missing = options(&[]).preload(vec!["no_such_module_for_stockade".into()]);
    let Err(err) = Session::new(missing) else {
        panic!("the start should fail")
    };
    assert!(
        err.to_string()
            .contains("cannot preload no_such_module_for_stockade"),
        "{err}"
    );
    let malformed = options(&[]).preload(vec!["os; import x".into()]);
    let Err(err) = Session::new(malformed) else {
        panic!("a malformed module name should be refused")
    };
    assert!(
        matches!(&err, Error::Configuration(_)) && err.to_string().contains("is not a module name"),
        "{err}"
    );
    let too_many = options(&[]).preload((0..65).map(|i| format!("m{i}")).collect());
    let Err(err) = Session::new(too_many) else {
        panic!("65 modules should be refused")
    };
    assert!(err.to_string().contains("at most 64"), "{err}");
}

#[test]
fn install_dependencies_before_the_first_run_gives_the_guest_them_and_keeps_the_hosts_functions() {
    let mut session = Session::new(options(&[])).expect("starts");
    session.register_function("twice", |args| match args.positional.first() {
        Some(Value::Int(n)) => Ok(Value::Int(n * 2)),
        _ => Ok(Value::None),
    });
    session.install_dependencies(&[]).unwrap();
    session
        .install_dependencies(&["tabulate==0.10.0".to_owned()])
        .expect("installed");
    assert_eq!(
        session
            .run("import tabulate\n[tabulate.__version__, twice(21)]")
            .unwrap(),
        Value::List(vec![s("0.10.0"), Value::Int(42)])
    );
    // Asking again for what it has is no change; anything new after the
    // first run is refused, naming it, and the session lives.
    session
        .install_dependencies(&["tabulate==0.10.0".to_owned()])
        .unwrap();
    let err = session
        .install_dependencies(&["six==1.17.0".to_owned()])
        .unwrap_err();
    assert!(
        matches!(&err, Error::Configuration(_))
            && err.to_string().contains("six==1.17.0")
            && err.to_string().contains("before a session's first run"),
        "{err}"
    );
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
    let mut monty = Session::new(SessionOptions::new(Language::Python).engine(Interpreter::Monty))
        .expect("starts");
    let err = monty
        .install_dependencies(&["tabulate".to_owned()])
        .unwrap_err();
    assert!(
        err.to_string().contains("needs the cpython engine"),
        "{err}"
    );
}

#[test]
fn a_script_block_installs_its_packages_only_when_the_session_allows_them() {
    let code = "# /// script\n# dependencies = [\"tabulate==0.10.0\"]\n# ///\nimport tabulate\ntabulate.__version__";
    // Not allowed: the block is a comment, as it is to Python.
    let mut plain = Session::new(options(&[])).expect("starts");
    let err = plain.run(code).unwrap_err();
    assert!(
        err.to_string().contains("No module named 'tabulate'"),
        "{err}"
    );
    // Allowed by name: installed before the first run.
    let mut allowed =
        Session::new(options(&[]).script_packages(vec!["Tabulate".into()])).expect("starts");
    assert_eq!(allowed.run(code).unwrap(), s("0.10.0"));
    // A later block naming what the session has runs; one naming more is
    // refused, naming it.
    assert_eq!(allowed.run(code).unwrap(), s("0.10.0"));
    let more = "# /// script\n# dependencies = [\"six==1.17.0\"]\n# ///\nimport six";
    let err = Session::new(options(&[]).script_packages(vec!["*".into()]))
        .and_then(|mut any| {
            any.run("1")?;
            any.run(more)
        })
        .unwrap_err();
    assert!(
        err.to_string().contains("before a session's first run"),
        "{err}"
    );
    // A package the allow-list does not name is refused before anything runs.
    let mut narrow =
        Session::new(options(&[]).script_packages(vec!["pandas".into()])).expect("starts");
    let err = narrow.run(code).unwrap_err();
    assert!(
        matches!(&err, Error::Configuration(_))
            && err
                .to_string()
                .contains("names tabulate==0.10.0, which script_packages does not allow"),
        "{err}"
    );
    // Extras bring in packages the block does not name: only `*` allows them.
    let extras = "# /// script\n# dependencies = [\"tabulate[widechars]==0.10.0\"]\n# ///\n1";
    let mut by_name =
        Session::new(options(&[]).script_packages(vec!["tabulate".into()])).expect("starts");
    let err = by_name.run(extras).unwrap_err();
    assert!(
        err.to_string()
            .contains("which script_packages does not allow"),
        "{err}"
    );
    // A broken block says what is wrong with it.
    let err = narrow
        .run("# /// script\n# dependencies = [\n# ///\n1")
        .unwrap_err();
    assert!(err.to_string().contains("not valid TOML"), "{err}");
}
