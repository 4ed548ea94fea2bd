"""docs/api.md's example is run as written, so the page cannot drift from the code."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_api_example_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/api.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "'game', 'score_0'" in printed and "first-player advantage" in printed
    assert (tmp_path / "bw3.parquet").is_file()
