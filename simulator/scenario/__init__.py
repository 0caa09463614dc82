"""The scenario file as a validated model: YAML to data (``yaml_input``), the staged validation and
loading (``model``), errors in the user's words (``explain``), the service level
(``service_level``) and the ``uncertain:`` block (``uncertainty``). Imports the kinds (each
option validates by its kind's model) and the rooms below them.
"""
