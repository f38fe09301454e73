"""Formulas as LaTeX math: :func:`to_latex` turns a parsed :mod:`deck.formula` expression
into the source MathJax and GitHub render (``2*(N - 1)/N*S`` → ``\\frac{2(N - 1)}{N} \\cdot S``).

Exports show a formula answer this way (``$…$`` on GitHub and in Obsidian, ``\\(…\\)`` in
Anki) beside the typed form in a code span. The output never contains ``$`` or ``*``, so it
cannot end a math span early or be read as Markdown emphasis.
"""

from __future__ import annotations

from deck.formula import BinOp, Call, Const, Expr, Neg, Num, Var, parse

# Greek letters people use as variables (α for latency, Ψ for parameters), as TeX commands.
_GREEK = {
    "α": r"\alpha",
    "β": r"\beta",
    "γ": r"\gamma",
    "δ": r"\delta",
    "ε": r"\varepsilon",
    "θ": r"\theta",
    "λ": r"\lambda",
    "μ": r"\mu",
    "ρ": r"\rho",
    "σ": r"\sigma",
    "τ": r"\tau",
    "φ": r"\varphi",
    "ψ": r"\psi",
    "ω": r"\omega",
    "Γ": r"\Gamma",
    "Δ": r"\Delta",
    "Θ": r"\Theta",
    "Λ": r"\Lambda",
    "Σ": r"\Sigma",
    "Φ": r"\Phi",
    "Ψ": r"\Psi",
    "Ω": r"\Omega",
}
_FUNCTION_NAMES = {"ln": r"\ln", "exp": r"\exp", "min": r"\min", "max": r"\max"}
_TEX_SPECIAL = {"\\": r"\backslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "%": r"\%", "&": r"\&"}


def formula_latex(text: str) -> str:
    """The LaTeX of the formula ``text`` (raises :class:`deck.formula.FormulaError`)."""
    return to_latex(parse(text))


def to_latex(expr: Expr) -> str:
    """LaTeX math (without delimiters) for ``expr``, with the fewest parentheses that keep it."""
    return _tex(expr)


def _name(name: str) -> str:
    if name in _GREEK:
        return _GREEK[name]
    base, _, sub = name.partition("_")
    text = _GREEK.get(base) or (base if len(base) == 1 else r"\mathit{" + _escape(base) + "}")
    return f"{text}_{{{_escape(sub)}}}" if sub else text


def _escape(text: str) -> str:
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def _number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    mantissa, _, exponent = f"{value:.6g}".partition("e")
    if exponent:
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return mantissa


def _is_fraction(expr: Expr) -> bool:
    return isinstance(expr, BinOp) and expr.op == "/"


def _wrapped(expr: Expr) -> str:
    return f"\\left({_tex(expr)}\\right)" if _is_fraction(expr) else f"({_tex(expr)})"


def _juxtaposable(expr: Expr) -> bool:
    """Whether ``2`` can stand right before ``expr`` (2N, 2(N - 1), 2N^{2}, 2\\log_{2}(N))."""
    if isinstance(expr, Var | Const | Call) or _needs_product_parens(expr):
        return True
    return (
        isinstance(expr, BinOp)
        and expr.op in "^*"
        and not isinstance(expr.left, Num)
        and _juxtaposable(expr.left)
    )


def _tex(expr: Expr) -> str:
    if isinstance(expr, Num):
        text = _number(abs(expr.value))
        return f"-{text}" if expr.value < 0 else text
    if isinstance(expr, Const):
        return r"\pi" if expr.name == "pi" else "e"
    if isinstance(expr, Var):
        return _name(expr.name)
    if isinstance(expr, Neg):
        inner = expr.operand
        simple = isinstance(inner, Num | Var | Const | Call) or (
            isinstance(inner, BinOp) and inner.op in "/^"
        )
        return f"-{_tex(inner)}" if simple else f"-{_wrapped(inner)}"
    if isinstance(expr, Call):
        return _call(expr)
    assert isinstance(expr, BinOp)
    return _binop(expr)


def _binop(expr: BinOp) -> str:
    op, left, right = expr.op, expr.left, expr.right
    if op == "/":
        return rf"\frac{{{_tex(left)}}}{{{_tex(right)}}}"
    if op == "^":
        base = _tex(left)
        if isinstance(left, BinOp | Neg) or (isinstance(left, Num) and left.value < 0):
            base = _wrapped(left)
        return f"{base}^{{{_tex(right)}}}"
    if op in "+-":
        rhs = _tex(right)
        if isinstance(right, Neg) or (op == "-" and isinstance(right, BinOp) and right.op in "+-"):
            rhs = _wrapped(right)
        elif isinstance(right, Num) and right.value < 0:
            rhs = f"({rhs})"
        return f"{_tex(left)} {op} {rhs}"
    # Multiplication: a sum is wrapped; a number before a letter or a bracket is juxtaposed
    # (2N, 2(N - 1)); anything else gets a centred dot, so 2·L·kv never reads as "2Lkv".
    lhs = _wrapped(left) if _needs_product_parens(left) else _tex(left)
    rhs = _wrapped(right) if _needs_product_parens(right) else _tex(right)
    juxtapose = isinstance(left, Num) and lhs.isdigit() and _juxtaposable(right)
    return f"{lhs}{rhs}" if juxtapose else rf"{lhs} \cdot {rhs}"


def _needs_product_parens(expr: Expr) -> bool:
    if isinstance(expr, BinOp):
        return expr.op in "+-"
    if isinstance(expr, Num):
        return expr.value < 0
    return isinstance(expr, Neg)


def _call(expr: Call) -> str:
    args = [_tex(a) for a in expr.args]
    name = expr.name
    if name == "sqrt":
        return rf"\sqrt{{{args[0]}}}"
    if name == "abs":
        return rf"\left|{args[0]}\right|"
    if name == "ceil":
        return rf"\left\lceil {args[0]} \right\rceil"
    if name == "floor":
        return rf"\left\lfloor {args[0]} \right\rfloor"
    if name == "log2":
        head = r"\log_{2}"
    elif name == "log10":
        head = r"\log_{10}"
    elif name == "log" and len(args) == 2:
        return rf"\log_{{{args[1]}}}\left({args[0]}\right)"
    elif name == "log":
        head = r"\ln"
    else:
        head = _FUNCTION_NAMES.get(name, rf"\operatorname{{{name}}}")
    return rf"{head}\left({', '.join(args)}\right)"
