"""deck.base: what every part of the engine stands on, and nothing domain-specific.

Provides the one error type and its one-line report (:mod:`.errors`), checked file reading and
atomic writing (:mod:`.safeio`), YAML text positions (:mod:`.textpos`), typed-input checks
(:mod:`.typed`) and a forked-worker map (:mod:`.forking`).

May import: the standard library only.
"""
