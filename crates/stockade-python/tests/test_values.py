"""Values cross both ways, in both languages; what cannot cross is a
ConversionError naming where it sits."""

import datetime as dt

import pytest

import stockade

ROUND_TRIP = {
    "none": None,
    "true": True,
    "small": -7,
    "big": 2**100,
    "negative_big": -(2**70),
    "float": 1.5,
    "text": "héllo ✓",
    "data": b"\x00\xffbytes",
    "items": [1, "two", [3.0, None]],
    "mapping": {"a": 1, "nested": {"b": [True]}},
    "date": dt.date(2024, 2, 29),
    "moment": dt.datetime(2024, 2, 29, 12, 30, 5, 250, tzinfo=dt.timezone.utc),
}

PYTHON_ONLY = {
    "pair": (1, "x"),
    "members": {1, 2, 3},
    "frozen": frozenset({"a"}),
    "int_keys": {1: "one", (2, 3): "pair"},
    "clock": dt.time(13, 5, 9, 250, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
    "naive": dt.datetime(1999, 12, 31, 23, 59, 59),
    "span": dt.timedelta(days=-1, seconds=5, microseconds=7),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_values_round_trip_through_a_python_guest(name):
    with stockade.Sandbox("python") as sandbox:
        value = ROUND_TRIP[name]
        assert sandbox.run("value", inputs={"value": value}) == value


@pytest.mark.parametrize("name", sorted(PYTHON_ONLY))
def test_python_only_values_round_trip_through_a_python_guest(name):
    with stockade.Sandbox("python") as sandbox:
        value = PYTHON_ONLY[name]
        assert sandbox.run("value", inputs={"value": value}) == value


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_values_round_trip_through_a_javascript_guest(name):
    with stockade.Sandbox("javascript") as sandbox:
        value = ROUND_TRIP[name]
        got = sandbox.run("value", inputs={"value": value})
        if name == "date":
            # JavaScript has only Date: a date arrives as midnight UTC.
            assert got == dt.datetime(2024, 2, 29, tzinfo=dt.timezone.utc)
        elif name == "moment":
            # Date has millisecond precision.
            assert got == value.replace(microsecond=0)
        elif name == "big":
            assert got == value
        else:
            assert got == value


def test_guest_values_arrive_as_python_types():
    with stockade.Sandbox("python") as sandbox:
        assert sandbox.run("(1, [2], {3}, frozenset([4]))") == (1, [2], {3}, frozenset([4]))
        got = sandbox.run("def f():\n    pass\nf")
        assert isinstance(got, stockade.Repr) and "function" in got
        cyc = sandbox.run("a = [1]\na.append(a)\na")
        assert cyc[0] == 1 and isinstance(cyc[1], stockade.Cycle)
    with stockade.Sandbox("javascript") as sandbox:
        assert sandbox.run("[undefined, null]") == [None, None]
        assert sandbox.run("new Map([[1, 'a']])") == {1: "a"}
        assert sandbox.run("new Set(['x'])") == {"x"}
        assert sandbox.run("new Uint8Array([1, 2])") == b"\x01\x02"


def test_a_cyclic_input_is_a_conversion_error_naming_its_path(language):
    rows = [{"id": 1}]
    rows[0]["self"] = rows
    with stockade.Sandbox(language) as sandbox:
        with pytest.raises(stockade.ConversionError, match=r"inputs\['rows'\]\[0\]\['self'\].*cycle"):
            sandbox.run("1", inputs={"rows": rows})
        # The sandbox lives.
        assert sandbox.run("1 + 1") == 2


def test_an_unsupported_input_type_is_a_conversion_error_naming_its_path(language):
    class Opaque:
        pass

    with stockade.Sandbox(language) as sandbox:
        with pytest.raises(stockade.ConversionError, match=r"inputs\['config'\]\['handler'\].*Opaque"):
            sandbox.run("1", inputs={"config": {"handler": Opaque()}})


def test_a_host_function_sees_guest_values_as_python_types():
    seen = []
    with stockade.Sandbox("python") as sandbox:
        sandbox.bind_function("keep", lambda *args, **kwargs: seen.append((args, kwargs)))
        sandbox.run("keep(1, 'a', [2], {'k': (3,)}, b'x', flag=None)")
    assert seen == [((1, "a", [2], {"k": (3,)}, b"x"), {"flag": None})]


def test_an_input_nested_past_the_wire_limit_is_a_conversion_error(language):
    deep = []
    for _ in range(70):
        deep = [deep]
    with stockade.Sandbox(language) as sandbox:
        with pytest.raises(stockade.ConversionError, match="deeper than 64"):
            sandbox.run("1", inputs={"deep": deep})
        assert sandbox.run("1 + 1") == 2
