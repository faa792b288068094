"""Message templates of the tools around TensorRT that name a node, layer or tensor.

``templates.tsv`` is derived from real sources by :mod:`trtsafe_lab.logs._messages.derive` (see
there for the sources, commits and columns); ``tests/test_logs_message_templates.py`` checks the
name grammar against every template. The package code does not read the table.
"""
