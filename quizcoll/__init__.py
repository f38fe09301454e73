"""quizcoll: interview flashcards on distributed training and GPU memory, with executable answers.

The application around the :mod:`deck` engine: the collective-communication simulator
(:mod:`quizcoll.collectives`), the memory calculators (:mod:`quizcoll.memory`), their
registration as card executables (:mod:`quizcoll.executables`), the CLI
(:mod:`quizcoll.cli`) and the Textual app (:mod:`quizcoll.tui`).
"""
