"""The built wheel installed into a fresh virtual environment, every console command run
from an empty folder, and the clashes with other ``models``/``scripts``/``training`` named in one line.

The wheel is built from this checkout (``pip wheel --no-deps --no-build-isolation``) and installed
with ``pip --python`` into a venv made with ``--without-pip``; the dependencies are this
environment's site-packages, put on the new venv's path by a ``.pth`` line (a path, not a site
directory: this environment's editable-install finder stays out, so nothing of the checkout is
importable). No network. ``XDG_CACHE_HOME`` is a temporary folder: the numba kernel cache goes
there, never into site-packages. The smoke run comes first and compiles the kernels the others use.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import hive_zero

ROOT = Path(__file__).resolve().parents[2]
GAME = "Base;InProgress;White[2];wS1;bG1 -wS1"
DATA = ["hive_zero/configs/train.yaml", "hive_zero/configs/experiment/smoke.yaml", "models/shipped/base.pt",
        "models/shipped/MODEL_CARD.md", "web/static/index.html", "web/data/puzzles_base.json",
        "arena/data/ladder_rungs.json"]
"""Files every command may read, which the wheel and the sdist must hold."""

pytestmark = pytest.mark.slow


def _pip(*args: str, cwd: Path | None = None) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args], check=True,
                   cwd=cwd, capture_output=True, text=True, timeout=300)


def _venv(path: Path, wheels: list[Path]) -> Path:
    """A fresh venv at ``path`` that sees this environment's packages (not its editable finder)
    with ``wheels`` installed; its bin folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    python = path / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(site, "_hive_zero_test_deps.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    _pip("--python", str(python), "install", "--no-deps", "--no-index", *map(str, wheels))
    return path / "bin"


def _env(bin_dir: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR",
                                                            "HIVE_ZERO_COMPILE_NOTICE")}
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "XDG_CACHE_HOME": str(cache),
            "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT))
    (found,) = out.glob("hive_zero-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """(bin folder, environment, an empty folder to run from, the venv)."""
    base = tmp_path_factory.mktemp("installed")
    bin_dir = _venv(base / "venv", [wheel])
    (base / "empty").mkdir()
    return bin_dir, _env(bin_dir, base / "cache"), base / "empty", base / "venv"


def run(installed, *cmd: str, stdin: str | None = None, timeout: float = 120, cwd: Path | None = None):
    bin_dir, env, empty, _ = installed
    return subprocess.run([str(bin_dir / cmd[0]), *cmd[1:]], cwd=cwd or empty, env=env, input=stdin,
                          capture_output=True, text=True, timeout=timeout)


def test_the_wheel_and_the_sdist_hold_every_data_file(wheel, tmp_path):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [f for f in DATA if f not in names] == []
    assert not any(n.startswith(("configs/", "tests/")) for n in names)  # configs only inside the package
    build = f"from setuptools import build_meta; build_meta.build_sdist({str(tmp_path)!r})"
    subprocess.run([sys.executable, "-c", build], cwd=ROOT, check=True, capture_output=True, timeout=300)
    (sdist,) = tmp_path.glob("hive_zero-*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    assert [f for f in DATA if f not in members] == []
    assert members["hive_zero/configs/train.yaml"].isfile()  # a copy, not the checkout's link


def test_hive_train_smoke_runs_in_the_folder_it_is_started_from(installed):
    _, _, empty, venv = installed
    proc = run(installed, "hive-train", "experiment=smoke", "train.steps=10", "eval.every=0",
               "eval.final_games=2", timeout=420)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (empty / "runs" / "smoke" / "checkpoints" / "final.pt").is_file()
    assert "final score vs random" in proc.stdout
    # the kernel cache went to the user's cache folder, nothing into site-packages
    cache = Path(installed[1]["XDG_CACHE_HOME"]) / "hive-zero"
    assert next(cache.rglob("*.nbi"), None) is not None
    assert next(venv.rglob("*.nbi"), None) is None


def test_every_command_says_its_version_and_helps(installed):
    for cmd in ("hive-train", "hive-uhp", "hive-play", "hive-arena", "hive-web", "hive-analyse", "hive-show",
                "hive-perft", "hive-bench-env", "hive-bench-engine", "hive-bench-backend"):
        proc = run(installed, cmd, "--version")
        assert proc.returncode == 0 and f"(hive-zero {hive_zero.__version__})" in proc.stdout, (cmd, proc)
        proc = run(installed, cmd, "--help")
        assert proc.returncode == 0 and "usage:" in proc.stdout, (cmd, proc)


def test_engine_commands_from_an_empty_folder(installed):
    proc = run(installed, "hive-perft", "Base", "2")
    assert proc.returncode == 0 and proc.stdout.splitlines()[1].startswith("2\t96\t"), proc
    proc = run(installed, "hive-uhp", stdin="info\nnewgame Base\nplay wS1\nbestmove time 00:00:01\nexit\n")
    assert proc.returncode == 0, proc
    assert proc.stdout.splitlines()[0] == f"id hive-zero v{hive_zero.__version__}"
    assert "Base;InProgress;Black[1];wS1" in proc.stdout  # bestmove by the shipped network follows
    proc = run(installed, "hive-show", GAME)
    assert proc.returncode == 0 and "bG1" in proc.stdout, proc
    proc = run(installed, "hive-analyse", GAME, "--sims", "8", "--no-progress")
    assert proc.returncode == 0, proc
    out = installed[2] / "arena_out"
    proc = run(installed, "hive-arena", "gauntlet", "random", "greedy", "--games-per-pairing", "2",
               "--no-progress", "--out", str(out))
    assert proc.returncode == 0 and (out / "games.jsonl").is_file(), proc


def test_hive_web_serves_its_page(installed):
    bin_dir, env, empty, _ = installed
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(bin_dir / "hive-web"), "--port", str(port)], cwd=empty, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
                puzzles = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/puzzles", timeout=5).read()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
                time.sleep(0.3)
        assert "<html" in page.lower() and len(puzzles) > 100
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _unshare() -> list[str] | None:
    """How to run a command in a mount namespace of its own here (None: not allowed)."""
    for cmd in (["unshare", "-m"], ["unshare", "-rm"]):
        try:
            if subprocess.run([*cmd, "true"], capture_output=True, timeout=30).returncode == 0:
                return cmd
        except (OSError, subprocess.SubprocessError):
            pass
    return None


def test_a_read_only_site_packages_works_and_says_where_the_kernels_go(installed, tmp_path):
    unshare = _unshare()
    if unshare is None:
        pytest.skip("no mount namespace here (unshare -m and -rm refused): site-packages stays writable")
    bin_dir, env, empty, _ = installed
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = subprocess.run([str(bin_dir / "python"), "-c", where], check=True, capture_output=True,
                          text=True).stdout.strip()
    cache = tmp_path / "cache"  # cold: the kernels compile, so they must be written somewhere
    # site-packages read-only in this namespace (root writes past file modes, not past a ro mount)
    script = (f'mount --bind "{site}" "{site}" && mount -o remount,ro,bind "{site}" || exit 90; '
              f'touch "{site}/probe" 2>/dev/null && exit 91; exec "$@"')
    proc = subprocess.run([*unshare, "sh", "-c", script, "sh", str(bin_dir / "hive-perft"), "Base", "2"],
                          cwd=empty, env={**env, "XDG_CACHE_HOME": str(cache)}, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode == 90:
        pytest.skip(f"mounting read-only was refused here: {proc.stderr.strip()}")
    assert proc.returncode == 0 and "2\t96\t" in proc.stdout, proc
    assert f"into {cache / 'hive-zero'}" in proc.stderr, proc.stderr  # the notice says where they go
    assert next(cache.rglob("*.nbi"), None) is not None


# ----- clashes ------------------------------------------------------------------------------------
def _decoys(folder: Path) -> None:
    """A user's own ``models.py``, ``scripts/`` and ``training/`` in the folder they work in."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "models.py").write_text("MINE = 'models'\n")
    for name in ("scripts", "training"):
        (folder / name).mkdir(exist_ok=True)
        (folder / name / "__init__.py").write_text(f"MINE = {name!r}\n")


def test_a_users_folder_neither_breaks_nor_is_broken_by_the_commands(installed, tmp_path):
    bin_dir, env, _, _ = installed
    _decoys(tmp_path)
    proc = run(installed, "hive-perft", "Base", "2", cwd=tmp_path)  # console scripts never look in the cwd
    assert proc.returncode == 0 and "2\t96\t" in proc.stdout, proc
    assert run(installed, "hive-train", "--help", cwd=tmp_path).returncode == 0
    # the user's code still gets its own modules, and may use the engine beside them
    code = "import models, scripts, training, hive_env; print(models.MINE, scripts.MINE, training.MINE)"
    proc = subprocess.run([str(bin_dir / "python"), "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["models", "scripts", "training"], proc
    # hive-zero code that needs the shadowed name says so in one line (no deep ImportError)
    proc = subprocess.run([str(bin_dir / "python"), "-c", "import arena"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode != 0 and "LayoutError: hive-zero: the 'models' imported here is" in last, last
    assert str(tmp_path / "models.py") in last
    # python -m puts the folder first: there the user's scripts/ is found (docs/setup.md says so)
    proc = subprocess.run([str(bin_dir / "python"), "-m", "scripts.perft", "Base", "1"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "No module named scripts.perft" in proc.stderr, proc.stderr


def test_a_package_of_the_same_name_on_the_path_is_named_in_one_line(installed, tmp_path):
    _decoys(tmp_path / "elsewhere")
    bin_dir, env, empty, _ = installed
    env = {**env, "PYTHONPATH": str(tmp_path / "elsewhere")}
    proc = subprocess.run([str(bin_dir / "hive-perft"), "Base", "1"], cwd=empty, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("hive-zero: the 'models' imported here is "
                                                                   f"{tmp_path / 'elsewhere' / 'models.py'}")


def test_another_installed_models_package_is_named_in_one_line(wheel, tmp_path):
    project = tmp_path / "foreign"
    (project / "models").mkdir(parents=True)
    (project / "models" / "__init__.py").write_text("FOREIGN = True\n")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "foreign-models"\nversion = "1.0"\n[tool.setuptools]\npackages = ["models"]\n')
    _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "wheels"), str(project))
    (foreign,) = (tmp_path / "wheels").glob("foreign_models-*.whl")
    bin_dir = _venv(tmp_path / "venv", [wheel])
    _pip("--python", str(bin_dir / "python"), "install", "--no-deps", "--no-index", str(foreign))
    env = _env(bin_dir, tmp_path / "cache")
    (tmp_path / "empty").mkdir()
    proc = subprocess.run([str(bin_dir / "hive-perft"), "--version"], cwd=tmp_path / "empty", env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc
    assert "models/__init__.py is not hive-zero's: another package (foreign-models)" in proc.stderr
    # the other package is whole (it was installed last) ...
    proc = subprocess.run([str(bin_dir / "python"), "-c", "import models; print(models.FOREIGN)"],
                          cwd=tmp_path / "empty", env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "True"
    shutil.rmtree(tmp_path / "venv")
