"""Tests for deck.formula: the safe expression parser behind formula cards and claims."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deck.base.errors import DeckError
from deck.formula import (
    MAX_DEPTH,
    MAX_LENGTH,
    BinOp,
    Call,
    Const,
    Expr,
    FormulaError,
    Neg,
    Num,
    Var,
    evaluate,
    parse,
    resolve_names,
)
from deck.formula.equivalence import Domain, equivalent

# The domains of a formula card's variables: N whole 2..64, S from 1 to 1e9.
DOMAINS = [Domain("N", 2, 64, integer=True), Domain("S", 1, 1e9)]
REFERENCE = "2*(N-1)/N*S"


# ----------------------------------------------------------------------------- equivalence

EQUIVALENT_FORMS = [
    "2*(N-1)/N*S",
    "2(N-1)/N·S",
    "2(N−1)/N × S",
    "2(N-1)/N S",
    "2(N-1)/N * S",
    "2 (N - 1) S / N",
    "2(N−1)S÷N",
    "2⋅(N−1)⋅S/N",
    "2*S*(N-1)/N",
    "S*2*(N-1)/N",
    "S(2N-2)/N",
    "2S(N-1)/N",
    "2S(1 - 1/N)",
    "2*S - 2*S/N",
    "2S - 2S/N",
    "(2N - 2)/N × S",
    "2*S*(1-N^-1)",
    "2*S*(1 - N**-1)",
    "2*S*(1 - N⁻¹)",
    "(N-1)/N*2*S",
    "2(N-1)(S/N)",
    "((2*(N-1))/N)*S",
    "2 * (N - 1) * S / N",
    "2*(N^1 - 1)*S/N",
    "2*S*(N-1)*N^-1",
    "(2*N*S - 2*S)/N",
    "2·(N−1)/N·S",
    "+2*(N-1)/N*S",
    "-(-2)*(N-1)/N*S",
    "2*(N-1)*S/N + 0",
    "2*(N-1)*S/N*1",
    "2*(N-1)/N*S*log2(4)/2",
    "2*(N-1)/N*S*sqrt(4)/2",
    "max(2*(N-1)/N*S, 0)",
    "2*(N-1)/N*S*exp(0)",
    "4*(N-1)*S/(2N)",
    "2*(N-1)/N*S*(pi/pi)",
]

NOT_EQUIVALENT_FORMS = [
    "2*(N-1)*S",
    "(N-1)/N*S",
    "2*N/(N-1)*S",
    "2(N+1)/N·S",
    "2*(N-1)/N",
    "2*(N-1)/(N*S)",
    "S/2N",  # (S/2)*N: implicit multiplication is not tighter than '/'
    "2*(N-1)/N*S + 1",
    "2*(N-1)/N*S*1.001",
    "2*S",
    "S",
    "2*(N-1)/N*S^2",
    "2*(N-1)/N*S + N - N + 1",
    "2*(N-2)/N*S",
    "2*(N-1)/log2(N)*S",
]


@pytest.mark.parametrize("text", EQUIVALENT_FORMS)
def test_equivalent_forms_of_ring_all_reduce(text: str) -> None:
    assert equivalent(REFERENCE, text, DOMAINS)


@pytest.mark.parametrize("text", NOT_EQUIVALENT_FORMS)
def test_non_equivalent_forms_detected(text: str) -> None:
    outcome = equivalent(REFERENCE, text, DOMAINS)
    assert not outcome and outcome.reason


def test_equivalent_after_resolving_lowercase_names() -> None:
    user = resolve_names(parse("2*(n-1)/n*s"), ["N", "S"])
    assert str(user) == "2*(N - 1)/N*S"
    assert equivalent(REFERENCE, user, DOMAINS)
    assert equivalent(REFERENCE, "2*(n-1)/n*s", DOMAINS)  # names are resolved inside too


def test_equivalent_is_exact_near_zero_and_far_from_one() -> None:
    zero = "S*(1 - 1/N) - S + S/N"  # floats round this to tiny non-zero values at S = 1e9
    assert equivalent(zero, "0", DOMAINS)
    assert equivalent("0", zero, DOMAINS)
    assert not equivalent(zero, "1e-300", DOMAINS)
    assert equivalent("0", "0", [])
    assert not equivalent("0", "1", [])
    assert not equivalent("1e9", "1e9 + 0.5", [])  # no tolerance: a formula is an identity
    assert not equivalent("1", "1.000000001", [])


def test_equivalent_skips_points_where_reference_is_undefined() -> None:
    small = [Domain("N", 1, 5, integer=True)]
    assert equivalent("(N-2)/(N-2)", "1", small)
    # The answer failing where the reference is defined is a mismatch.
    assert not equivalent("1", "(N-2)/(N-2)", small)
    assert not equivalent("N", "sqrt(N - 3)^2 + 3", small)
    with pytest.raises(FormulaError, match="unknown variable 'x'"):
        equivalent("N", "N + x - x", small)


def test_equivalent_with_no_usable_point_is_false() -> None:
    assert not equivalent("1/0", "1", [])
    assert not equivalent("1/(N-N)", "1", DOMAINS)


# ----------------------------------------------------------------------------- precedence

PRECEDENCE = [
    ("2+3*4", 14),
    ("2*3+4", 10),
    ("(2+3)*4", 20),
    ("8/4/2", 1),
    ("8/2*4", 16),
    ("2-3-4", -5),
    ("2-(3-4)", 3),
    ("2^3^2", 512),
    ("2**3**2", 512),
    ("(2^3)^2", 64),
    ("-2^2", -4),
    ("-2**2", -4),
    ("(-2)^2", 4),
    ("2^-1", 0.5),
    ("2^-2^2", 2**-4),
    ("-2^-2", -0.25),
    ("2^2*3", 12),
    ("2*3^2", 18),
    ("-3*2", -6),
    ("--3", 3),
    ("2--3", 5),
    ("2+-3", -1),
    ("+3", 3),
    ("10−3", 7),
    ("10–3", 7),
    ("6÷2×3", 9),
    ("6/2(1+2)", 9),
    ("2³", 8),
    ("2³²", 2.0**32),
    ("4²/2", 8),
    ("-2²", -4),
    ("4⁻¹", 0.25),
    ("√16", 4),
    ("√16*2", 8),
    ("2√16", 8),
    ("√4^2", 4),
    ("-8^(1/3)", -2),
    ("1e9", 1e9),
    ("1.5E-3", 1.5e-3),
    ("1e−3", 1e-3),
    (".5", 0.5),
    ("5.", 5),
    ("1_000", 1000),
    ("1_000.5", 1000.5),
    ("pi", math.pi),
    ("π", math.pi),
    ("e", math.e),
    ("log2(1024)", 10),
    ("log10(1000)", 3),
    ("ln(e)", 1),
    ("log(e^2)", 2),
    ("log(8, 2)", 3),
    ("log_2(8)", 3),
    ("LOG2(8)", 3),
    ("sqrt(2)^2", 2.0000000000000004),
    ("exp(0)", 1),
    ("min(3, 1, 2)", 1),
    ("max(3, 1, 2)", 3),
    ("max(2)", 2),
    ("min(-2)", -2),
    ("abs(-3)", 3),
    ("ceil(2.1)", 3),
    ("floor(-2.1)", -3),
    ("ceil(log2(5))", 3),
    ("2^0.5", math.sqrt(2)),
    ("0^0", 1),
    ("0^2", 0),
    ("(-2)^3", -8),
    ("2^-2000", 0),
    ("1^1e300", 1),
]


@pytest.mark.parametrize(("text", "expected"), PRECEDENCE)
def test_precedence_and_values(text: str, expected: float) -> None:
    assert evaluate(text, {}) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------- implicit multiplication

IMPLICIT = [
    ("2N", "2*N"),
    ("2 N", "2*N"),
    ("2(N-1)", "2*(N - 1)"),
    ("(N-1)(N+1)", "(N - 1)*(N + 1)"),
    ("(N)(S)", "N*S"),
    ("2 N S", "2*N*S"),
    ("N S", "N*S"),
    ("NS", "NS"),  # one name: a run of letters is never split
    ("N(N-1)", "N*(N - 1)"),
    ("2N^2", "2*N^2"),
    ("2N²", "2*N^2"),
    ("2^N S", "2^N*S"),
    ("-2N", "-2*N"),
    ("2sqrt(N)", "2*sqrt(N)"),
    ("sqrt(N)sqrt(N)", "sqrt(N)*sqrt(N)"),
    ("N log2(N)", "N*log2(N)"),
    ("2pi", "2*pi"),
    ("2π", "2*pi"),
    ("2e", "2*e"),
    ("2e3", "2000"),
    ("2e3N", "2000*N"),
    ("S_1 S_2", "S_1*S_2"),
    ("x1 x2", "x1*x2"),
    ("ψα", "ψα"),
    ("ψ α", "ψ*α"),
    ("Ψ ψ", "Ψ*ψ"),
    ("3(2)", "3*2"),
    ("2(N)S", "2*N*S"),
    ("1/2N", "1/2*N"),
    ("N/2N", "N/2*N"),
    ("2 √N", "2*sqrt(N)"),
    ("(N-1)/N S", "(N - 1)/N*S"),
    ("2(N−1)/N·S", "2*(N - 1)/N*S"),
]


@pytest.mark.parametrize(("text", "normalised"), IMPLICIT)
def test_implicit_multiplication(text: str, normalised: str) -> None:
    expr = parse(text)
    assert str(expr) == normalised
    assert parse(normalised) == expr


def test_implicit_multiplication_tree() -> None:
    assert parse("2N") == BinOp("*", Num(2), Var("N"))
    assert parse("2 N S") == BinOp("*", BinOp("*", Num(2), Var("N")), Var("S"))
    assert parse("-2^2") == Neg(BinOp("^", Num(2), Num(2)))
    assert parse("2^3^2") == BinOp("^", Num(2), BinOp("^", Num(3), Num(2)))
    assert parse("log2(N) + pi") == BinOp("+", Call("log2", (Var("N"),)), Const("pi"))


# ----------------------------------------------------------------------------- str

NORMALISED = [
    ("2*(N-1)/N*S", "2*(N - 1)/N*S"),
    ("  2 * ( N - 1 ) / N * S  ", "2*(N - 1)/N*S"),
    ("a-(b-c)", "a - (b - c)"),
    ("a-(b+c)", "a - (b + c)"),
    ("a+(b+c)", "a + (b + c)"),
    ("(a+b)+c", "a + b + c"),
    ("a/(b*c)", "a/(b*c)"),
    ("a/(b/c)", "a/(b/c)"),
    ("(a*b)/c", "a*b/c"),
    ("-(a*b)", "-(a*b)"),
    ("-a*b", "-a*b"),
    ("(-a)^2", "(-a)^2"),
    ("-a^2", "-a^2"),
    ("--a", "-(-a)"),
    ("a*-b", "a*(-b)"),
    ("a - -b", "a - (-b)"),
    ("2^-1", "2^(-1)"),
    ("(2^3)^4", "(2^3)^4"),
    ("2^(3^4)", "2^3^4"),
    ("max( a ,b )", "max(a, b)"),
    ("log(8,2)", "log(8, 2)"),
    ("0.5", "0.5"),
    ("1e20", "1e+20"),
    ("1.5e-7", "1.5e-07"),
    ("1e14", "100000000000000"),
]


# As papers print them: log₂ (with or without parentheses around one operand), ⌈ ⌉, ⌊ ⌋.
PRINTED = [
    ("log₂N", "log2(N)"),
    ("log₂N·S", "log2(N)*S"),
    ("log₂(N)·S", "log2(N)*S"),
    ("2log₂N", "2*log2(N)"),
    ("N log₂N", "N*log2(N)"),
    ("log₂N²", "log2(N^2)"),
    ("Log₂(8)", "log2(8)"),
    ("⌈log₂N⌉", "ceil(log2(N))"),
    ("⌊log₂N⌋", "floor(log2(N))"),
    ("⌈N/2⌉ + 1", "ceil(N/2) + 1"),
    ("2⌈log₂N⌉·α", "2*ceil(log2(N))*α"),
]


@pytest.mark.parametrize(("text", "normalised"), PRINTED)
def test_printed_logarithm_and_brackets(text: str, normalised: str) -> None:
    assert str(parse(text)) == normalised
    assert parse(text) == parse(normalised)


@pytest.mark.parametrize(("text", "normalised"), NORMALISED)
def test_str_is_normalised_and_reparses(text: str, normalised: str) -> None:
    expr = parse(text)
    assert str(expr) == normalised
    assert parse(str(expr)) == expr


# ----------------------------------------------------------------------------- tree


def test_expr_is_frozen_and_hashable() -> None:
    a, b = parse("2*(N-1)/N*S"), parse("2(N-1)/N S")
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, parse("N")}) == 2
    assert isinstance(a, Expr)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.op = "+"  # type: ignore[attr-defined,misc]


def test_variables() -> None:
    assert parse("2*(N-1)/N*S + pi + e + log2(M)").variables == frozenset({"N", "S", "M"})
    assert parse("3").variables == frozenset()
    assert parse("ψ + S_1").variables == frozenset({"ψ", "S_1"})


def test_evaluate_with_env() -> None:
    assert evaluate("2*(N-1)/N*S", {"N": 4, "S": 1e9}) == 1.5e9
    assert parse("x + y").evaluate({"x": 1, "y": 2.5}) == 3.5


def test_constructed_nodes_are_checked() -> None:
    with pytest.raises(FormulaError):
        Num(math.inf)
    with pytest.raises(FormulaError):
        Num(10**400)
    with pytest.raises(FormulaError):
        BinOp("%", Num(1), Num(2))
    with pytest.raises(FormulaError):
        Call("sin", (Num(1),))
    with pytest.raises(FormulaError):
        Call("sqrt", (Num(1), Num(2)))
    with pytest.raises(FormulaError):
        Const("tau")


# ----------------------------------------------------------------------------- errors

PARSE_ERRORS = [
    ("", "empty formula"),
    ("   ", "empty formula"),
    ("2*", "unexpected end of formula after '*'"),
    ("2 +", "unexpected end of formula after '+'"),
    ("(2", "missing ')' for the '(' at column 1"),
    ("2*(N-1", "missing ')' for the '(' at column 3"),
    ("2)", "unexpected ')' at column 2"),
    ("(N-1))*2", "unexpected ')' at column 6"),
    ("2 3", "missing operator before '3' at column 3"),
    ("N 2", "missing operator before '2' at column 3"),
    ("(N-1)2", "missing operator before '2' at column 6"),
    ("1.2.3", "missing operator before '.3' at column 4"),
    ("2 $ 3", "unexpected character '$' at column 3"),
    ("2 % 3", "unexpected character '%' at column 3"),
    ("2 = 3", "unexpected character '=' at column 3"),
    ("[N]", "unexpected character '[' at column 1"),
    ("*2", "unexpected '*' at column 1"),
    ("2*/3", "unexpected '/' at column 3"),
    ("2^^3", "unexpected '^' at column 3"),
    ("2***3", "unexpected '*' at column 4"),
    ("()", "empty parentheses at column 1"),
    ("2()", "empty parentheses at column 2"),
    (",", "unexpected ',' at column 1"),
    ("2, 3", "unexpected ',' at column 2"),
    ("max(1,)", "unexpected ')' at column 7"),
    ("max(,1)", "unexpected ',' at column 5"),
    ("sqrt N", "function 'sqrt' at column 1 needs parentheses, e.g. sqrt(x)"),
    ("2 log2", "function 'log2' at column 3 needs parentheses"),
    ("log₂", "function 'log₂' at column 1 needs parentheses"),
    ("log₂ + 1", "function 'log₂' at column 1 needs parentheses"),
    ("log2 N", "function 'log2' at column 1 needs parentheses"),
    ("⌈N", "missing '⌉' for the '⌈' at column 1"),
    ("⌊N/2", "missing '⌋' for the '⌊' at column 1"),
    ("⌉", "unexpected '⌉' at column 1"),
    ("sqrt(1, 2)", "sqrt takes 1 argument, got 2 at column 1"),
    ("log(1, 2, 3)", "log takes 1 or 2 arguments, got 3"),
    ("max()", "max takes at least 1 argument, got 0"),
    ("sin(x)", "function 'sin' at column 1 is not supported"),
    ("1e999", "number '1e999' at column 1 is too large"),
    ("9" * 400, "number '999999999999999999999...' at column 1 is too large"),
    ("1_", "malformed number '1_' at column 1"),
    ("1__0", "malformed number"),
    ("2⁻", "malformed superscript power '⁻' at column 2"),
    ("²", "unexpected '²' at column 1"),
    ("x" * (MAX_LENGTH + 1), f"formula is too long ({MAX_LENGTH + 1} characters; at most 500)"),
    ("(" * 200 + "1" + ")" * 200, "nested too deeply"),
    ("-" * 300 + "1", "nested too deeply"),
    ("2^" * 150 + "2", "nested too deeply"),
    ("√" * 150 + "1", "nested too deeply"),
    ("ln(" * 110 + "1" + ")" * 110, "nested too deeply (more than 100 levels) at column"),
]


@pytest.mark.parametrize(("text", "message"), PARSE_ERRORS, ids=[t[:24] for t, _ in PARSE_ERRORS])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(FormulaError) as info:
        parse(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


EVAL_ERRORS = [
    ("1/0", "division by zero in 1/0"),
    ("1/(N-N)", "division by zero in 1/(N - N)"),
    ("0^-1", "division by zero"),
    ("sqrt(-1)", "sqrt of a negative number"),
    ("√(0-4)", "sqrt of a negative number"),
    ("log2(0)", "log2 of a non-positive number"),
    ("ln(-1)", "ln of a non-positive number"),
    ("log10(N-N)", "log10 of a non-positive number"),
    ("log(8, 1)", "log base must be positive and not 1"),
    ("log(8, -2)", "log base must be positive and not 1"),
    ("(-8)^(1/3)", "negative number to a fractional power"),
    ("9^9^9", "overflow"),
    ("2^2^2^2^2", "overflow"),
    ("10^400", "overflow"),
    ("exp(1000)", "overflow"),
    ("1e308*10", "overflow"),
    ("1e308 + 1e308", "overflow"),
    ("-1e308 - 1e308", "overflow"),
    ("x", "unknown variable 'x' (known: N)"),
]


@pytest.mark.parametrize(("text", "message"), EVAL_ERRORS)
def test_evaluation_errors(text: str, message: str) -> None:
    with pytest.raises(FormulaError) as info:
        evaluate(text, {"N": 3})
    assert message in str(info.value)


@pytest.mark.parametrize("value", ["3", None, True, math.nan, math.inf, 10**400, [3]])
def test_bad_variable_values(value: object) -> None:
    with pytest.raises(FormulaError):
        evaluate("N + 1", {"N": value})  # type: ignore[dict-item]


@pytest.mark.parametrize("text", [None, 3, b"N", ["N"]])
def test_non_text(text: object) -> None:
    with pytest.raises(FormulaError, match="expected formula text"):
        parse(text)  # type: ignore[arg-type]


def test_formula_error_is_a_deck_error() -> None:
    assert issubclass(FormulaError, DeckError)


def test_deep_nesting_fails_fast_not_with_recursion_error() -> None:
    for text in ("(" * 5000 + "1" + ")" * 5000, "(" * 5000, "-" * 5000 + "1"):
        with pytest.raises(FormulaError):
            parse(text)
    depth_ok = "(" * (MAX_DEPTH - 1) + "N" + ")" * (MAX_DEPTH - 1)
    assert parse(depth_ok) == Var("N")
    long_chain = "+".join(["N"] * 250)  # 499 characters, a 249-deep left chain
    assert parse(long_chain).evaluate({"N": 1}) == 250
    assert str(parse(long_chain)).count("N") == 250


# ----------------------------------------------------------------------------- names


def test_resolve_names_maps_case_and_greek() -> None:
    assert str(resolve_names(parse("2*(n-1)/n*s"), ["N", "S"])) == "2*(N - 1)/N*S"
    assert resolve_names(parse("ψ + 1"), ["Ψ"]) == parse("Ψ + 1")
    assert resolve_names(parse("s_1 + S_2"), iter(["S_1", "S_2"])) == parse("S_1 + S_2")
    exact = parse("N + n")
    assert resolve_names(exact, ["N", "n"]) is exact  # exact names win, nothing to do
    assert resolve_names(parse("2 + pi"), []) == parse("2 + pi")


@pytest.mark.parametrize(
    ("text", "allowed", "message"),
    [
        ("x", ["N", "S"], "unknown variable 'x'; use N, S"),
        ("Sx", ["N", "S"], "(did you mean 'S'?)"),
        ("Nn", ["N", "S", "Nm"], "unknown variable 'Nn'; use N, S, Nm"),
        ("NS", ["N", "S"], "(a product needs '*' or a space: 'N*S')"),
        ("ns", ["N", "S"], "'N*S'"),
        ("log2N", ["N", "S"], "(did you mean 'log2(N)'?)"),
        ("nb", ["Nb", "NB"], "variable 'nb' is ambiguous: write 'Nb' or 'NB'"),
        ("x", [], "unknown variable 'x': this formula takes no variables"),
        ("2*N + y", ["N"], "unknown variable 'y'"),
    ],
)
def test_resolve_names_errors(text: str, allowed: list[str], message: str) -> None:
    with pytest.raises(FormulaError) as info:
        resolve_names(parse(text), allowed)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


# ----------------------------------------------------------------------------- layering


def test_module_imports_only_the_standard_library() -> None:
    code = (
        "import sys, deck.formula; "
        "bad = [m for m in ('numpy', 'quizcoll', 'textual') if m in sys.modules]; "
        "print(*bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# ----------------------------------------------------------------------------- properties

ENV = {"N": 3.0, "S": 1e9, "x": -2.5, "ψ": 0.5}
SOUP = [
    "(", ")", "+", "-", "*", "/", "^", "**", "×", "·", "−", "÷", ",", ".", "_", " ",
    "2", "0", "1e9", "1e308", "1e-320", "9", "N", "S", "x", "ψ", "e", "pi", "²", "⁻",
    "√", "sqrt(", "log2(", "log(", "max(", "min(", "exp(", "ceil(", "abs(", "sin(",
    "log₂", "₂", "⌈", "⌉", "⌊", "⌋",
]  # fmt: skip


def _check_only_formula_errors(text: str) -> None:
    try:
        expr = parse(text)
    except FormulaError as error:
        assert "\n" not in str(error)
        return
    try:
        value = expr.evaluate(ENV)
    except FormulaError:
        pass
    else:
        assert math.isfinite(value)
    assert parse(str(expr)) == expr


@settings(max_examples=400)
@given(st.text())
def test_junk_text_raises_only_formula_error(text: str) -> None:
    _check_only_formula_errors(text)


@settings(max_examples=400)
@given(st.lists(st.sampled_from(SOUP), max_size=40).map("".join))
def test_operator_soup_raises_only_formula_error(text: str) -> None:
    _check_only_formula_errors(text)


@settings(max_examples=100)
@given(st.text(alphabet="()+-*/^2N, ", min_size=400, max_size=600))
def test_long_junk_raises_only_formula_error(text: str) -> None:
    _check_only_formula_errors(text)


# Trees over which str() must print text that parses back to the very same tree.
_leaves = st.one_of(
    st.integers(0, 10**6).map(Num),
    st.sampled_from([0.5, 1e-3, 2.5e10, 1e20, 1.25]).map(Num),
    st.sampled_from(["N", "S", "x", "ψ", "S_1"]).map(Var),
    st.sampled_from(["pi", "e"]).map(Const),
)


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.builds(BinOp, st.sampled_from("+-*/^"), children, children),
        children.map(Neg),
        st.builds(lambda f, a: Call(f, (a,)), st.sampled_from(["sqrt", "log2", "abs"]), children),
        st.builds(lambda f, a, b: Call(f, (a, b)), st.sampled_from(["min", "max", "log"]), children, children),
    )  # fmt: skip


trees = st.recursive(_leaves, _extend, max_leaves=16)


@settings(max_examples=300)
@given(trees)
def test_str_of_any_tree_parses_back_to_the_same_tree(tree: Expr) -> None:
    assert parse(str(tree)) == tree


# Texts in the styles people type, to check str(parse(x)) against parse(x).
_atoms = st.sampled_from(["N", "S", "2", "0.5", "1e3", "pi", "ψ", "3"])


def _combine(parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, op, b: f"{a}{op}{b}", parts, st.sampled_from([*"+-*/^×·−÷", "**", " + ", " * "]), parts),
        parts.map(lambda a: f"({a})"),
        parts.map(lambda a: f"-{a}"),
        st.builds(lambda a, b: f"({a})({b})", parts, parts),
        st.builds(lambda a, b: f"2({a}) {b}", parts, parts),
        parts.map(lambda a: f"sqrt({a})"),
        st.builds(lambda a, b: f"max({a}, {b})", parts, parts),
    )  # fmt: skip


texts = st.recursive(_atoms, _combine, max_leaves=12)


@settings(max_examples=300)
@given(texts)
def test_normalised_text_reparses_to_an_equivalent_expression(text: str) -> None:
    try:
        expr = parse(text)
    except FormulaError:
        return  # e.g. "2 3" from juxtaposed numbers: not this test's concern
    again = parse(str(expr))
    assert again == expr
    domains = [Domain("N", 2, 64, integer=True), Domain("S", 1, 1e6), Domain("ψ", -1, 3)]
    outcome = equivalent(expr, again, domains)
    assert outcome.equal or "no value" in outcome.reason


@settings(max_examples=200)
@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.integers(1, 1000))
def test_arithmetic_matches_python(a: int, b: int, c: int) -> None:
    env = {"a": float(a), "b": float(b), "c": float(c)}
    assert evaluate("a + b*c - a/c", env) == pytest.approx(a + b * c - a / c)
    assert evaluate("(a - b)(a + b)", env) == pytest.approx(a * a - b * b)
    assert evaluate("-c^2 + c²", env) == 0
