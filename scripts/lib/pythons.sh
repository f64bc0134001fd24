# The CPython versions the package and the CPython engine support (what
# pyproject.toml's classifiers and docs/install.md name), and where this
# machine keeps each. Sourced by the scripts that test every interpreter.
SUPPORTED_PYTHONS=(3.9 3.10 3.11 3.12 3.13)

# The newest pyenv interpreter of the minor version $1 (3.12), or nothing:
# releases only (3.12.1, not a free-threaded 3.13.0t, which loads no abi3
# module).
python_for() {
  ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/python3 2>/dev/null |
    grep -E "/versions/$1\.[0-9]+/bin/" | sort -V | tail -n 1 || true
}
