"""The interactive query shell, ``kg shell``: SPARQL and graph questions at a prompt.

Modules, from the input to the output:

``lexer``, ``statements``
    Tokens of (half-typed) SPARQL; where statements end (``;`` outside braces, a
    dot-command at its newline); the ``kgr:entity/clip`` name extension.
``completion``, ``catalog``, ``completer``
    What fits at the cursor (a pure function of the text), the names on offer
    (vocabulary terms, the graph's entities), and the prompt-toolkit completer.
``commands`` (a package, by topic), ``query``
    The dot-commands' registry and handlers (the graph questions ask :mod:`kg.explore.reports`),
    and running SPARQL; every handler returns a :class:`kg.query.result.Result`.
``session``
    The state passed to handlers, and what persists (history, saved queries).
``output``, ``highlight``, ``prompt``, ``app``
    Showing results and errors, syntax highlighting, the prompt and its keys, and the
    loop (interactive or piped) behind :func:`shell.app.run_shell`.
"""
