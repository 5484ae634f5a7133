"""hive-train's command-line overrides before a run starts: checked, composed, explained.

:func:`check_overrides` names an unknown key or option in one line, with the closest valid ones;
:func:`compose_config` composes the config as Hydra would, any Hydra error as one line;
:func:`settings_help` is ``hive-train --help``: the config groups, their options, and every setting
with its value and the first sentence of its documentation (:func:`field_docs`).

See docs/training.md (settings and start-up errors).
"""

from __future__ import annotations

import inspect
import re
import shutil
import textwrap
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from omegaconf import DictConfig, OmegaConf, open_dict

import hive_zero

from .config import GROUPS, TOP_LEVEL, ConfigError, RunConfig, register_configs, unknown_setting

CONFIGS: Path = hive_zero.CONFIGS
"""The Hydra configs of hive-train (configs/train.yaml and its groups), found through the package
(``hive_zero/configs``), never through the current folder."""


# ----- what exists ------------------------------------------------------------------------------
HYDRA_CONFIGS = "hydra"
"""The folder of ``configs/`` holding options of Hydra's own groups (``hydra/launcher=slurm``):
Hydra checks those, they are not settings of a run."""


def config_groups() -> dict[str, list[str]]:
    """Each config group of ``configs/`` (a folder; Hydra's own aside) and its options (its yaml
    files), sorted."""
    return {d.name: sorted(p.stem for p in d.glob("*.yaml"))
            for d in sorted(CONFIGS.iterdir()) if d.is_dir() and d.name != HYDRA_CONFIGS}


def setting_keys() -> list[str]:
    """Every setting's full key: the top-level ones, then ``group.field`` group by group."""
    return [*TOP_LEVEL, *(f"{g}.{f.name}" for g, cls in GROUPS.items() for f in fields(cls) if f.init)]


def _is_mapping(group: str, name: str) -> bool:
    """Whether the setting ``group.name`` is a mapping (its own keys are free, e.g.
    ``ray.worker_resources.selfplay_node``)."""
    return get_origin(get_type_hints(GROUPS[group]).get(name)) is dict


# ----- checks -------------------------------------------------------------------------------------
def one_line(error: Exception) -> str:
    """An error's message as one line: its first paragraph, whitespace collapsed."""
    return " ".join(str(error).strip().split("\n\n")[0].split())


def check_setting(key: str) -> None:
    """Raise :class:`ConfigError` unless ``key`` (``seed``, ``train.lr``) names a setting."""
    first, _, rest = key.partition(".")
    top = sorted({*TOP_LEVEL, *GROUPS, *config_groups()})
    candidates = setting_keys() if rest else top
    if first not in TOP_LEVEL and first not in GROUPS or first in TOP_LEVEL and rest:
        raise unknown_setting(key, top, candidates)
    if first in TOP_LEVEL:
        return
    name = rest.split(".")[0]
    known = [f.name for f in fields(GROUPS[first]) if f.init]
    if rest and (name not in known or ("." in rest and not _is_mapping(first, name))):
        raise unknown_setting(key, known, candidates)


def check_option(group: str, option: str, groups: dict[str, list[str]]) -> None:
    """Raise :class:`ConfigError` unless ``option`` is one of the config group's."""
    import difflib

    choices = groups[group]
    if option in choices:
        return
    close = difflib.get_close_matches(option, choices, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise ConfigError(f"{group}={option}: {group} has no option {option!r}{hint} "
                      f"(choices: {', '.join(choices)})")


def check_overrides(overrides: Sequence[str]) -> None:
    """Raise :class:`ConfigError` for the first override that Hydra cannot parse, that names no
    setting, or that picks no option of a config group.

    Every ``KEY=VALUE`` must name a setting (training.config) and every ``GROUP=OPTION`` an option
    of a config group (``configs/<group>/<option>.yaml``); otherwise one line names the key or
    group, its choices and the closest valid names (``difflib``): ``unknown setting trian.lr: did
    you mean train.lr? (known: ...)``, ``experiment=smok: experiment has no option 'smok'; did you
    mean smoke? (choices: cpu, cpu_long, gpu, smoke)``. Hydra's own keys (``hydra.*``,
    ``hydra/...``) pass unchecked."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except HydraException as e:
        raise ConfigError(one_line(e)) from None
    groups = config_groups()
    for override in parsed:
        key = override.key_or_group
        if override.package is not None or re.split(r"[./]", key)[0] == "hydra":
            continue  # Hydra's own settings, or a package placement: Hydra checks them
        if key in groups:
            value = None if override.is_delete() else override.value()
            if isinstance(value, str):
                check_option(key, value, groups)
        elif "/" in key:
            raise ConfigError(f"{key}: no such config group (groups: {', '.join(groups)})")
        else:
            check_setting(key)


# ----- composing ----------------------------------------------------------------------------------
def compose_config(overrides: Sequence[str] = (), return_hydra_config: bool = False) -> DictConfig:
    """hive-train's config for command-line style ``overrides`` (``["experiment=smoke",
    "run_dir=..."]``), composed by Hydra as the command line composes it (checked first by
    :func:`check_overrides`), the network's size adopted from ``train.init_from`` where the
    overrides leave it unset (training.lineage.adopt_parent_size).

    Raises:
        ConfigError: an unknown setting or option, or an override Hydra cannot compose (one line).
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from .lineage import adopt_parent_size

    check_overrides(overrides)
    register_configs()
    try:
        with initialize_config_dir(config_dir=str(CONFIGS), version_base=None):
            cfg = compose(config_name="train", overrides=list(overrides),
                          return_hydra_config=return_hydra_config)
    except (HydraException, OmegaConfBaseException) as e:
        raise ConfigError(one_line(e)) from None
    adopt_parent_size(cfg, overrides)
    return cfg


# ----- --help -------------------------------------------------------------------------------------
def _plain(text: str) -> str:
    """Docstring markup as plain text: ``x`` and :role:`x` as x, whitespace collapsed."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    return " ".join(text.replace("``", "").split())


def field_docs(cls: type) -> dict[str, str]:
    """Each documented field of ``cls`` and its bases, from the ``Args:`` sections of their
    docstrings (Google style: ``name: text``, indented continuation lines; ``a, b: text``
    documents both), as plain text; a subclass's entry replaces its base's, or follows it when
    it starts ``as in``."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        doc = inspect.cleandoc(klass.__dict__.get("__doc__") or "")
        names: list[str] = []
        in_args = False
        for line in doc.splitlines():
            if line.strip() == "Args:":
                in_args = True
            elif in_args and line and not line.startswith(" "):
                in_args = False  # the next section
            elif in_args and (m := re.match(r"^ {4}(\w+(?:, \w+)*): (.*)$", line)):
                names = m.group(1).split(", ")
                text = m.group(2)
                for name in names:  # "as in TrainConfig, ...": the base's words first
                    refers = text.startswith("as in ") and name in docs
                    docs[name] = f"{docs[name]} A{text[1:]}" if refers else text
            elif in_args and line.startswith(" " * 8) and names:
                for name in names:
                    docs[name] += " " + line.strip()
    return {name: _plain(text) for name, text in docs.items()}


def first_sentence(text: str) -> str:
    """Up to the first full stop followed by a capital letter (``e.g. X`` is no end)."""
    m = re.search(r"(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z])", text)
    return text[: m.start() + 1] if m else text


def _shown(value: Any) -> str:
    """A value as it is written on the command line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) + "}"
    return str(value) if value != "" else "''"


def settings_help(overrides: Sequence[str] = ()) -> str:
    """The text of ``hive-train --help`` for a command line's ``overrides``: the config groups and
    their options, then every setting as ``group.key``, its value for this command line (the one
    the run would use) and the first sentence of its documentation, read from the ``Args:``
    sections of the dataclasses' docstrings (:func:`field_docs`), where each setting's default
    and documentation live.

    Raises:
        ConfigError: as :func:`compose_config`.
    """
    cfg = compose_config(overrides, return_hydra_config=True)
    choices = {k: v for k, v in cfg.hydra.runtime.choices.items() if not k.startswith("hydra/")}
    with open_dict(cfg):
        del cfg["hydra"]
    values = OmegaConf.to_container(cfg, resolve=True)
    rows = [(key, _shown(values.get(key)), field_docs(RunConfig).get(key, "")) for key in TOP_LEVEL]
    for group, cls in GROUPS.items():
        docs = field_docs(cls)
        section = values.get(group) or {}
        rows += [(f"{group}.{f.name}", _shown(section.get(f.name)), docs.get(f.name, ""))
                 for f in fields(cls) if f.init]
    width = min(120, max(80, shutil.get_terminal_size((100, 24)).columns))
    key_w = max(len(k) for k, _, _ in rows)
    value_w = min(16, max(len(v) for _, v, _ in rows))
    indent = " " * (key_w + value_w + 6)
    lines = ["usage: hive-train [-m] [GROUP=OPTION ...] [KEY=VALUE ...]",
             "",
             "AlphaZero-style self-play training (docs/training.md); rerunning a command resumes its run.",
             "  hive-train experiment=smoke",
             "  hive-train experiment=cpu model.width=64 seed=3 name=wide",
             "  hive-train -m experiment=ablation search=puct,gumbel16 seed=1,2,3   "
             "# a sweep: one job a core, sweeps/<name>/",
             "",
             "config groups (GROUP=OPTION; * in use):"]
    for group, options in config_groups().items():
        marked = ", ".join(f"{o}*" if choices.get(group) == o else o for o in options)
        lines.append(f"  {group:<{key_w}}  {marked}{'' if choices.get(group) else '  (none in use)'}")
    lines += ["", "settings (KEY=VALUE; the values of this command line; training/config.py documents them):"]
    for key, value, doc in rows:
        head = f"  {key:<{key_w}}  {value:<{value_w}}  "
        text = first_sentence(doc)
        if len(head) > len(indent):  # a long value: its documentation on the next line
            lines.append(head.rstrip())
            head = indent
        lines.append(textwrap.fill(text, width, initial_indent=head, subsequent_indent=indent) if text
                     else head.rstrip())
    lines += ["", "hive-train --cfg job prints the whole composed config; hive-train --hydra-help lists "
              "Hydra's flags."]
    return "\n".join(lines)
