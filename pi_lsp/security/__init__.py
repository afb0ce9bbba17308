"""pi_lsp.security: what keeps the agent's shell from the user's secrets and system.

Secret detection and the environment scrub (``env_secrets``), the process's own secrets kept
out of its environment (``vault``, ``harden``), splitting a shell command into the parts a
permission rule must all match (``shell_split``), remembered "always allow" rules
(``rules``), the permission prompt's text (``prompt_text``) and the bubblewrap sandbox
(``sandbox``). The bottom layer beside ``ai/``: imports nothing of ours, no pygls.
"""
