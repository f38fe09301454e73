"""Second methods: results reached another way than the calculators' closed forms.

A card's answer comes from an executable; when that executable is a formula
(``hardware.transfer`` divides bytes by a rate, ``training.batch`` divides a batch), holding it
to the same formula re-typed in the card proves nothing: a bug in both agrees with itself.
The modules here reach the same quantities by a different road, so a card can hold its
answer to one of them (``check --coverage`` counts it as *independent*):

- **stepping** the process: bytes moved chunk by chunk on a clock, micro-batches consumed
  one by one, tokens routed and counted, blocks allocated as a request grows;
- **enumerating** a structure: the tensors a configuration allocates, element by element
  shape products, every bit pattern of a float format;
- **searching**: the largest value for which a predicate still holds, found by bisection.

Rules (import-linter contract "witnesses share no code with what they check", in
``pyproject.toml``): a witness imports only the standard library, numpy and other witnesses;
never the calculators (``quizcoll.memory``, ``quizcoll.systems``, ``quizcoll.collectives``),
the constants, the executables or the engine. A card that wants the collective simulator's
schedule as its second method runs a ``collectives.*`` executable directly.
Published figures and model shapes reach a witness as arguments (from cited constants in the
card), never from the catalogs the calculators read. Each witness is a pure function of its
arguments; randomness, where a witness samples, is a passed ``numpy.random.Generator``.

The executables ``witness.*`` (``quizcoll/executables/witness_*.py``) register them and
declare how each obtains its result (simulated, enumerated, searched).
"""
