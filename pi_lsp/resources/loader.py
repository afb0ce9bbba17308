"""``load_resources``: everything a session's cwd and the user's agent dir give its agent.

Pure over the file system (tests build trees in ``tmp_path``); never raises for anything it
finds — bad files become ``Diagnostic``s. ``ProjectResources`` keeps one session's current
``Resources`` and reloads them when a file it looked at changed (the session asks at the start
of each prompted run, never mid-turn).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Collection, Mapping
from typing import Any

from .context_files import imports_not_followed, load_context_files
from .expand import Expansion, expand_input
from .files import Watch, is_file, read_text
from .models import (
    Command,
    Diagnostic,
    PromptFile,
    ResourceOptions,
    Resources,
    ResourcesPayload,
    TrustInfo,
)
from .roots import (
    project_skill_roots,
    project_template_roots,
    user_skill_roots,
    user_template_roots,
)
from .skills import SkillRoot, load_skills
from .templates import TemplateRoot, load_templates, uses_arguments
from .trust import protected_candidates, protected_paths

log = logging.getLogger(__name__)
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"


def agent_dir(options: ResourceOptions | None = None, env: Mapping[str, str] | None = None) -> str:
    """``options.agent_dir``, else ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    env = os.environ if env is None else env
    chosen = (options.agent_dir if options else None) or env.get(AGENT_DIR_ENV)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    return os.path.join(os.path.expanduser("~"), ".pi", "agent")


def _prompt_input(
    value: str | None, cwd: str, diagnostics: list[Diagnostic], watch: Watch
) -> PromptFile | None:
    """``--system-prompt`` / ``--append-system-prompt``: a file's text when it names one."""
    if not value:
        return None
    path = os.path.join(cwd, os.path.expanduser(value))
    if is_file(path, watch):
        text = read_text(path, diagnostics, watch)
        if text is not None:
            return PromptFile(path=path, content=text)
    return PromptFile(path=None, content=value)


def _discovered(
    name: str, cwd: str, agent: str, trusted: bool, diagnostics: list[Diagnostic], watch: Watch
) -> PromptFile | None:
    """``.pi/NAME`` (trusted projects only) else ``<agent dir>/NAME``: one file, never both."""
    for path, allowed in (
        (os.path.join(cwd, ".pi", name), trusted),
        (os.path.join(agent, name), True),
    ):
        if allowed and is_file(path, watch):
            text = read_text(path, diagnostics, watch)
            if text is not None:
                return PromptFile(path=path, content=text)
    return None


def _settings_paths(
    settings_file: str, key: str, base: str, diagnostics: list[Diagnostic], watch: Watch
) -> list[str]:
    """The plain paths of ``skills`` / ``prompts`` in a Pi ``settings.json``."""
    if not is_file(settings_file, watch):
        return []
    text = read_text(settings_file, diagnostics, watch)
    try:
        data: Any = json.loads(text or "{}")
    except ValueError as exc:
        diagnostics.append(
            Diagnostic(type="warning", message=f"invalid JSON: {exc}", path=settings_file)
        )
        return []
    values = data.get(key) if isinstance(data, dict) else None
    if not isinstance(values, list):
        return []
    out = []
    for value in values:
        if isinstance(value, str) and value and value[0] not in "+-!":
            out.append(os.path.normpath(os.path.join(base, os.path.expanduser(value))))
    return out


def load_resources(
    cwd: str,
    options: ResourceOptions | None = None,
    *,
    trusted: bool = True,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
) -> tuple[Resources, Watch]:
    """What ``cwd`` (a trusted project or not) and the agent dir give a session, and the
    ``Watch`` a reload checks."""
    options = options or ResourceOptions()
    cwd = os.path.abspath(cwd)
    home = home if home is not None else os.path.expanduser("~")
    agent = agent_dir(options, env)
    watch = Watch()
    diagnostics: list[Diagnostic] = []
    compat = options.claude_compat
    context = []
    if options.context_files:
        context = load_context_files(cwd, agent, diagnostics, watch)
        diagnostics += imports_not_followed(context)
    system = _prompt_input(options.system_prompt, cwd, diagnostics, watch) or _discovered(
        "SYSTEM.md", cwd, agent, trusted, diagnostics, watch
    )
    append = _prompt_input(options.append_system_prompt, cwd, diagnostics, watch) or _discovered(
        "APPEND_SYSTEM.md", cwd, agent, trusted, diagnostics, watch
    )
    project_settings = os.path.join(cwd, ".pi", "settings.json")
    user_settings = os.path.join(agent, "settings.json")

    def settings(key: str) -> tuple[list[str], list[str]]:
        project = (
            _settings_paths(project_settings, key, os.path.join(cwd, ".pi"), diagnostics, watch)
            if trusted
            else []
        )
        return project, _settings_paths(user_settings, key, agent, diagnostics, watch)

    skills = []
    if options.skills or options.extra_skill_paths:
        roots: list[SkillRoot] = []
        if options.skills:
            project_paths, user_paths = settings("skills")
            if trusted:
                roots += [SkillRoot(p, "project", "pi") for p in project_paths]
                roots += project_skill_roots(cwd, claude_compat=compat, home=home)
            roots += [SkillRoot(p, "user", "pi") for p in user_paths]
            roots += user_skill_roots(agent, claude_compat=compat, home=home)
        roots += [SkillRoot(os.path.join(cwd, p), "path", "pi") for p in options.extra_skill_paths]
        skills = load_skills(roots, diagnostics, watch)
    templates = []
    if options.prompt_templates or options.extra_template_paths:
        troots: list[TemplateRoot] = []
        if options.prompt_templates:
            project_paths, user_paths = settings("prompts")
            if trusted:
                troots += [TemplateRoot(p, "project") for p in project_paths]
                troots += project_template_roots(cwd, claude_compat=compat)
            troots += [TemplateRoot(p, "user") for p in user_paths]
            troots += user_template_roots(agent, claude_compat=compat, home=home)
        troots += [TemplateRoot(os.path.join(cwd, p), "path") for p in options.extra_template_paths]
        templates = load_templates(troots, diagnostics, watch)
    ignored = () if trusted else tuple(protected_paths(cwd, claude_compat=compat, home=home))
    if not trusted:  # one appearing later is listed (and the session can ask) at the next load
        for path in protected_candidates(cwd, claude_compat=compat, home=home):
            watch.note(path)
    resources = Resources(
        cwd=cwd,
        agent_dir=agent,
        context_files=tuple(context),
        system_prompt=system,
        append_prompts=(append,) if append else (),
        skills=tuple(skills),
        templates=tuple(templates),
        diagnostics=tuple(diagnostics),
        trusted=trusted,
        ignored_untrusted=ignored,
    )
    return resources, watch


OVERRIDABLE_BUILTINS = frozenset({"review"})
"""Builtins a prompt template of the same name replaces (``/review``: the template is the
review's prompt, docs/review.md): with such a template the template is listed, not the
builtin. Any other builtin hides a template of its name (the front end runs it itself)."""


def list_commands(
    resources: Resources | None, builtins: Mapping[str, str] | None = None
) -> list[Command]:
    """The slash commands a front end offers: its ``builtins`` (name → description) first,
    then the prompt templates, then the skills as ``skill:name``, each sorted by name; one
    entry per name (``OVERRIDABLE_BUILTINS``)."""
    templates = {t.name for t in resources.templates} if resources is not None else set()
    out = [
        Command(name=name, description=text, source="builtin")
        for name, text in sorted((builtins or {}).items())
        if not (name in OVERRIDABLE_BUILTINS and name in templates)
    ]
    if resources is None:
        return out
    taken = {c.name for c in out}
    for t in sorted(resources.templates, key=lambda t: t.name):
        if t.name in taken:
            continue
        hint = t.argument_hint or ("arguments" if uses_arguments(t) else None)
        out.append(
            Command(
                name=t.name,
                description=t.description,
                argument_hint=hint,
                source="prompt",
                path=t.path,
            )
        )
    for s in sorted(resources.skills, key=lambda s: s.name):
        out.append(
            Command(
                name=f"skill:{s.name}",
                description=s.description,
                argument_hint="optional request",
                source="skill",
                path=s.path,
            )
        )
    return out


def describe(resources: Resources) -> ResourcesPayload:
    """What was loaded, for a front end's context view."""
    if resources.ignored_untrusted:
        trust = TrustInfo(status="untrusted", ignored_paths=resources.ignored_untrusted)
    else:
        trust = TrustInfo(status="trusted" if resources.trusted else "not-needed")
    return ResourcesPayload(
        cwd=resources.cwd,
        context_files=resources.context_files,
        system_prompt=resources.system_prompt,
        append_system_prompt=resources.append_prompts,
        skills=resources.skills,
        templates=resources.templates,
        diagnostics=resources.diagnostics,
        trust=trust,
    )


class ProjectResources:
    """One session's resources: loaded once, reloaded when a file they came from (or one
    that could join them) changed — checked by ``refresh()`` at the start of each prompted
    run — or on ``reload()``."""

    def __init__(
        self,
        cwd: str,
        options: ResourceOptions | None = None,
        *,
        trusted: bool = True,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
    ) -> None:
        self.cwd = os.path.abspath(cwd)
        self.options = options or ResourceOptions()
        self.trusted = trusted
        self._env = env
        self._home = home
        self.current, self._watch = self._load()

    def _load(self) -> tuple[Resources, Watch]:
        try:
            return load_resources(
                self.cwd, self.options, trusted=self.trusted, env=self._env, home=self._home
            )
        except Exception as exc:  # nothing the loader finds may stop a session
            log.exception("loading project resources for %s failed", self.cwd)
            failed = Diagnostic(type="error", message=f"loading failed: {exc}", path=self.cwd)
            empty = Resources(
                cwd=self.cwd, agent_dir=agent_dir(self.options, self._env), diagnostics=(failed,)
            )
            return empty, Watch()

    def changed(self) -> bool:
        return self._watch.changed()

    def reload(self) -> Resources:
        self.current, self._watch = self._load()
        return self.current

    def refresh(self) -> bool:
        """Reload when something changed; whether it did."""
        if not self.changed():
            return False
        self.reload()
        return True

    def set_trusted(self, trusted: bool) -> Resources:
        self.trusted = trusted
        return self.reload()

    def set_options(self, options: ResourceOptions) -> Resources:
        self.options = options
        return self.reload()

    def expand(self, text: str, builtins: Collection[str] = ()) -> Expansion:
        return expand_input(text, self.current, builtins)

    def commands(self, builtins: Mapping[str, str] | None = None) -> list[Command]:
        return list_commands(self.current, builtins)

    def payload(self) -> ResourcesPayload:
        return describe(self.current)
