"""The similarity report of a cohort (autograder/cohort/similarity.py): a synthetic cohort built
from the exemplar's example submissions and its source's ``alternative`` cells, with records
written by hand (nothing is graded here)."""

import ast
import csv
import json
import re

import pytest
from conftest import EXEMPLAR

from autograder.cohort import browser, outputs, similarity
from autograder.cohort.pages import questions_of
from autograder.cohort.record import CohortSummary, Record
from autograder.run.diagnosis import KNOWN
from autograder.run.paths import REPO

EXAMPLES = REPO / "examples" / "submissions" / EXEMPLAR
RENAMES = {"teacher": "t_star", "counts": "histogram", "alpha": "load", "chunk": "block", "Zin": "fields",
           "agree_a": "same_a", "agree_b": "same_b"}
HOSTILE = "# </pre><script>document.title='pwned'</script><img src=x onerror=alert(1)>\n"
SAME_ANSWER = ("At finite N the derivative is a smooth sigmoid and minus the second derivative a peak whose "
               "height grows with N; the jump of the energy is the latent heat; between alpha_c and the spinodal "
               "the interior minimum survives as a metastable state.")
HINT_RARE = "The first-order transition is where the two minima cross, not where one disappears."
HINT_COMMON = "Entropies here are in nats (natural log)."


def _graded(nb: dict):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "graded" in c["metadata"].get("tags", [])]


def _renamed(nb: dict) -> dict:
    """The same code with the variables renamed (and a hostile comment: shown as text)."""
    nb = json.loads(json.dumps(nb))
    for cell in _graded(nb):
        src = "".join(cell["source"])
        for old, new in RENAMES.items():
            src = re.sub(rf"\b{old}\b", new, src)
        cell["source"] = src
    _graded(nb)[0]["source"] = HOSTILE + _graded(nb)[0]["source"]
    return nb


def _alternative(stub: dict) -> dict:
    """The release's stubs filled with the source's ``alternative`` implementations (an
    independent implementation, docstrings kept)."""
    text = (REPO / "source" / EXEMPLAR / f"{EXEMPLAR}.py").read_text()
    cells = [c.split("\n", 1)[1] for c in text.split("# %%") if c.startswith(' tags=["alternative"]')]
    bodies, helpers = {}, []
    for cell in cells:
        for node in ast.parse(cell).body:
            if isinstance(node, ast.FunctionDef):
                segment = ast.get_source_segment(cell, node)
                if node.name.startswith("_"):
                    helpers.append(segment)
                else:
                    bodies[node.name] = segment.split("\n", 1)[1]
    nb = json.loads(json.dumps(stub))
    for cell in _graded(nb):
        src = "".join(cell["source"])
        name = re.search(r"^def (\w+)", src, re.MULTILINE).group(1)
        src = re.sub(r"    # YOUR CODE HERE\n    raise NotImplementedError\(.*\)",
                     lambda m, body=bodies[name]: body, src)
        cell["source"] = src + ("\n\n\n" + "\n\n\n".join(helpers) if name == "interior_minimum" else "")
    return nb


def _tests(wrong: dict | None = None, stub: bool = False) -> list[dict]:
    out = []
    for name in ("test_generalization_error", "test_overlap_entropy", "test_critical_load", "test_spinodal_load"):
        if stub:
            out.append({"name": name, "points": 0.0, "max_points": 1.0, "passed": False, "diagnosis": "",
                        "message": f"{name[5:]} is not implemented yet"})
        elif name in (wrong or {}):
            out.append({"name": name, "points": 0.0, "max_points": 1.0, "passed": False,
                        "message": "wrong value", "diagnosis": wrong[name]})
        else:
            out.append({"name": name, "points": 1.0, "max_points": 1.0, "passed": True, "message": "ok"})
    return out


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("similarity")
    correct = json.loads((EXAMPLES / "correct.ipynb").read_text())
    stub = json.loads((EXAMPLES / "stub.ipynb").read_text())
    prompt_2 = questions_of(EXEMPLAR)["written_2"][0]
    notebooks = {"ada": correct, "bob": _renamed(correct), "cleo": _alternative(stub)}
    answers = {"ada": "The susceptibility peaks, its height grows like N, the latent heat is the jump in alpha.",
               "bob": "I think the first derivative looks like a step at large N and the second one like a spike.",
               "cleo": "Between alpha_c and alpha_sp both minima exist: a metastable interior state, hysteresis.",
               "quin": "Magnet: +m and -m, symmetric. Perceptron: the teacher and the cloud; Ising weights matter.",
               "quil": ("Here the minima are not related by any symmetry, "
                        "the discreteness of the weights gives the jump."),
               "quid": "With spherical weights the entropy has no cusp at R=1 and the transition becomes continuous."}
    wrong = {}
    for i, s in enumerate(["wen", "wu", "wei", "wan"]):  # four identical written answers, code untouched
        notebooks[s] = stub
        answers[s] = SAME_ANSWER.upper() if i == 3 else SAME_ANSWER  # case and spacing do not hide a copy
    for s in ("stu1", "stu2"):  # untouched notebooks: identical stubs, blank answers
        notebooks[s] = stub
        answers[s] = "*Your answer here.*"
    for s in ("pia", "pat"):  # the same rare wrong answers on the hidden tests
        notebooks[s] = stub
        wrong[s] = {"test_critical_load": KNOWN + HINT_RARE, "test_spinodal_load": "Off by a factor 2."}
    for s in ("quin", "quil", "quid"):  # a common mistake, and the prompt copied into the answer
        notebooks[s] = stub
        wrong[s] = {"test_overlap_entropy": KNOWN + HINT_COMMON}
    results = []
    for student, nb in notebooks.items():
        path = tmp / f"{student}.ipynb"
        path.write_text(json.dumps(nb))
        blank = answers.get(student, "*Your answer here.*") == "*Your answer here.*"
        text_2 = (prompt_2 + "\n\nMy answer: " + answers[student][:40]
                  if student.startswith("qu") else "*Your answer here.*")
        manual = [{"question": "written_1", "points": 1.0, "cell": 32,
                   "text": answers.get(student, "*Your answer here.*"), "missing": False, "blank": blank},
                  {"question": "written_2", "points": 1.0, "cell": 42, "text": text_2, "missing": False,
                   "blank": text_2 == "*Your answer here.*"}]
        stubbed = student in ("wen", "wu", "wei", "wan", "stu1", "stu2")
        results.append(Record.from_dict({"student": student, "assignment": EXEMPLAR, "submission": str(path),
                                         "version": "2026.x", "score": 0.0, "max_score": 4.0,
                                         "tests": _tests(wrong.get(student), stub=stubbed),
                                         "errors": [], "manual": manual, "seconds": 1.0}))
    summary = CohortSummary(assignment=EXEMPLAR, version="2026.x", unmatched=[], results=results)
    out = tmp / "out"
    outputs.write_outputs(summary, out)
    return summary, similarity.find(summary), out


def _pair(sim, kind, a, b, question=""):
    found = [p for p in sim.of(kind) if {p.a, p.b} == {a, b} and p.question == question]
    return found[0] if found else None


def test_the_same_code_with_renamed_variables_is_flagged_first(cohort):
    _, sim, _ = cohort
    top = sim.of("code")[0]
    assert {top.a, top.b} == {"ada", "bob"} and top.flagged
    assert top.share_a > 0.9 and top.share_b > 0.9 and top.shared >= similarity.CODE_MIN_SHARED


def test_independent_implementations_are_not_flagged(cohort):
    _, sim, _ = cohort
    for other in ("ada", "bob"):
        pair = _pair(sim, "code", other, "cleo")
        assert pair is None or (not pair.flagged and pair.score < 0.2), pair
    assert sim.of("code").index(_pair(sim, "code", "ada", "bob")) == 0


def test_untouched_notebooks_are_never_flagged(cohort):
    _, sim, _ = cohort
    untouched = {"stu1", "stu2", "wen", "wu", "wei", "wan", "pia", "pat", "quin", "quil", "quid"}
    assert not [p for p in sim.of("code") if {p.a, p.b} & untouched]
    assert not [p for p in sim.pairs if {p.a, p.b} & {"stu1", "stu2"}]
    assert any(n.startswith("template only") and "stu1" in n and "stu2" in n for n in sim.notes)


def test_four_identical_written_answers_are_flagged_as_a_group(cohort):
    _, sim, _ = cohort
    assert ("written_1", ["wan", "wei", "wen", "wu"]) in sim.groups
    four = [p for p in sim.of("written") if {p.a, p.b} <= {"wan", "wei", "wen", "wu"}]
    assert len(four) == 6 and all(p.flagged and p.score == 1.0 for p in four)
    assert sim.of("written")[:6] == four


def test_blank_answers_and_a_copied_prompt_are_not_similarity(cohort):
    _, sim, _ = cohort
    assert not [p for p in sim.of("written") if {p.a, p.b} & {"stu1", "stu2", "ada", "bob", "cleo"}]
    assert not [p for p in sim.of("written") if p.question == "written_2" and p.flagged]
    assert [g for g in sim.groups if g[0] == "written_2"] == []


def test_the_same_rare_wrong_answers_are_flagged_and_common_ones_not(cohort):
    _, sim, _ = cohort
    pair = _pair(sim, "behaviour", "pia", "pat")
    assert pair is not None and pair.flagged and HINT_RARE in pair.evidence
    assert "the same 2 tests answered wrong" in pair.evidence
    assert [(p.a, p.b) for p in sim.of("behaviour")] == [(pair.a, pair.b)]  # quin/quil/quid: 3 students, common


def test_outputs_have_the_csv_and_the_report_section(cohort):
    _, _, out = cohort
    with open(out / "similarity.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    flagged = {(r["kind"], frozenset((r["student_a"], r["student_b"]))) for r in rows if r["flagged"] == "yes"}
    assert ("code", frozenset({"ada", "bob"})) in flagged
    assert ("written", frozenset({"wen", "wan"})) in flagged and ("behaviour", frozenset({"pia", "pat"})) in flagged
    assert not [r for r in rows if r["kind"] == "code" and "cleo" in (r["student_a"], r["student_b"])
                and r["flagged"] == "yes"]
    report = (out / "report.html").read_text()
    assert "Similar submissions" in report and "href=\"similarity.html\"" in report


@pytest.mark.skipif(browser.find_chromium() is None, reason="no Chromium here: install the distribution's `chromium`")
def test_the_side_by_side_page_in_a_browser(cohort):
    _, _, out = cohort
    page = out / "similarity.html"
    raw = page.read_text()
    body = raw.split("</head>", 1)[1]
    assert "<script" not in body and "<img" not in body and "&lt;script&gt;" in body  # escaped, then sanitized
    seen = browser.probe(page)
    text = seen["text"]
    code = text.split("Code of the graded cells", 1)[1].split("Written answers", 1)[0]
    # both sides of the top pair: ada's names on one side, bob's renamed ones on the other
    assert "1. ada and bob" in code and "Zin * np.sign" not in code
    assert "Zin = X * np.sign(X @ teacher)" in code and "fields = X * np.sign(X @ t_star)" in code
    # the hostile comment in bob's code is text, not markup
    assert "<script>document.title='pwned'</script><img src=x onerror=alert(1)>" in code
    dom = browser.dump_dom(page)
    assert "<title>pwned" not in dom and "<script" not in dom and "<img" not in dom
    written = text.split("Written answers", 1)[1].split("Behaviour on the hidden tests", 1)[0]
    assert SAME_ANSWER in written and SAME_ANSWER.upper() in written
    assert "pia" in text and HINT_RARE in text
    assert seen["styled"]


def test_a_zip_cohorts_code_is_compared(tmp_path, monkeypatch, capsys):
    """`pdl grade-cohort` on a zip keeps the extraction until the outputs are written, so the code of
    a zip's submissions is compared as a folder's is (grading replaced by records built here); the
    extraction is gone afterwards."""
    import io
    import tempfile
    import zipfile

    from autograder import cli
    from autograder.cohort import grade

    correct = json.loads((EXAMPLES / "correct.ipynb").read_text())
    stub = json.loads((EXAMPLES / "stub.ipynb").read_text())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for student, nb in {"ada": correct, "bob": _renamed(correct), "cleo": _alternative(stub)}.items():
            zf.writestr(f"{student}/{EXEMPLAR}.ipynb", json.dumps(nb))
    archive = tmp_path / "submissions.zip"
    archive.write_bytes(buf.getvalue())
    scratch = tmp_path / "scratch"  # where the zip is extracted
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(grade, "resolve_isolation", lambda isolation: "namespace")

    def graded(todo, assignment, limits, workers, scheduler, progress):
        for sub, digest in todo:
            assert sub.path.is_file() and str(sub.path).startswith(str(scratch))
            yield Record.from_dict({"assignment": assignment, "submission": str(sub.path), "score": 4.0,
                                    "max_score": 4.0, "tests": _tests(), "errors": [], "manual": [], "seconds": 1.0,
                                    "sha256": digest, "isolation": "namespace"})

    monkeypatch.setattr(grade, "_run", graded)
    out = tmp_path / "out"
    assert cli.main(["grade-cohort", str(archive), "--assignment", EXEMPLAR, "--out", str(out),
                     "--no-gradebook", "--quiet"]) == 0
    with open(out / "similarity.csv", newline="") as f:
        code = [r for r in csv.DictReader(f) if r["kind"] == "code"]
    assert code, "no code compared: the zip's extraction was gone before the outputs were written"
    assert {code[0]["student_a"], code[0]["student_b"]} == {"ada", "bob"} and code[0]["flagged"] == "yes"
    assert "code not read" not in (out / "similarity.html").read_text()
    assert list(scratch.iterdir()) == []  # the extraction is removed once the outputs are written
    assert "3 submissions: 3 graded now" in capsys.readouterr().out


# -- the index finds what comparing every pair finds (issue 37, item 4) -------------------------
def _all_pairs_code(codes, template):
    """code_pairs as it was before the index: copydetect's compare_files on every pair."""
    cd = similarity._copydetect()
    boiler = similarity._boilerplate([template], similarity.CODE_K, code=True)
    prints = {s: similarity._fingerprint(c, similarity.CODE_K, boiler, code=True) for s, c in codes.items()}
    prints = {s: fp for s, fp in prints.items() if fp.hashes}
    names, pairs = sorted(prints), []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if not prints[a].hashes & prints[b].hashes:
                continue
            shared, (share_a, share_b), (slices_a, slices_b) = cd.compare_files(prints[a], prints[b])
            if shared:
                score = max(float(share_a), float(share_b))
                pairs.append(("code", a, b, "", score, float(share_a), float(share_b), int(shared),
                              bool(score >= similarity.CODE_FLAG_SHARE and shared >= similarity.CODE_MIN_SHARED),
                              (similarity._marked(prints[a].raw_code, slices_a),
                               similarity._marked(prints[b].raw_code, slices_b))))
    return pairs


def _all_pairs_written(results):
    """written_pairs as it was before the index: every pair of answers to a question."""
    cd = similarity._copydetect()
    prompts = questions_of(EXEMPLAR)
    by_question = {}
    for rec in results:
        for m in rec.manual or []:
            text = similarity._normal(m.text)
            if similarity.answer_state(m) == "yes" and len(text) >= similarity.WRITTEN_MIN_CHARS:
                by_question.setdefault(str(m.question), {})[rec.student] = (text, str(m.text))
    pairs = []
    for question, answers in sorted(by_question.items()):
        boiler = similarity._boilerplate([similarity._normal(prompts.get(question, ("", ""))[0])],
                                         similarity.WRITTEN_K, code=False)
        prints = {s: similarity._fingerprint(t, similarity.WRITTEN_K, boiler, code=False)
                  for s, (t, _) in answers.items()}
        names = sorted(prints)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if answers[a][0] == answers[b][0]:
                    shared, share_a, share_b = len(answers[a][0]), 1.0, 1.0
                elif prints[a].hashes & prints[b].hashes:
                    shared, (share_a, share_b), _ = cd.compare_files(prints[a], prints[b])
                else:
                    continue
                if max(float(share_a), float(share_b)) < 0.5:
                    continue
                low = min(float(share_a), float(share_b))
                pairs.append(("written", a, b, question, low, float(share_a), float(share_b), int(shared),
                              bool(low >= similarity.WRITTEN_FLAG_SHARE),
                              (similarity.markup.render(answers[a][1]), similarity.markup.render(answers[b][1]))))
    return pairs


def _all_pairs_behaviour(results):
    limit = max(2, int(similarity.RARE * len(results)))
    wrong = {r.student: similarity.wrong_tests(r) for r in results}
    mistakes = {r.student: similarity.known_mistakes(r) for r in results}
    sets, made = {}, {}
    for w in wrong.values():
        if w:
            sets[w] = sets.get(w, 0) + 1
    for ms in mistakes.values():
        for m in ms:
            made[m] = made.get(m, 0) + 1
    names, pairs = sorted(wrong), []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            same = bool(wrong[a]) and wrong[a] == wrong[b] and sets[wrong[a]] <= limit
            rare = sorted(m for m in mistakes[a] & mistakes[b] if made[m] <= limit)
            if same or rare:
                pairs.append(("behaviour", a, b, "", len(rare) + same, 0.0, 0.0, len(rare), same and bool(rare),
                              (similarity._behaviour_side(wrong[a], wrong[b], rare),
                               similarity._behaviour_side(wrong[b], wrong[a], rare))))
    return pairs


def _generated_cohort(n=60, seed=37):
    """``n`` students: the exemplar's correct, renamed, alternative, partial and untouched code with
    graded cells mixed between them and lines dropped or repeated at random (some left verbatim:
    exact copies); written answers drawn from a few sentences (some verbatim, some re-cased, some
    half shared); wrong tests and catalogued mistakes drawn at random (some rare, some common)."""
    import random

    rng = random.Random(seed)
    correct = json.loads((EXAMPLES / "correct.ipynb").read_text())
    stub = json.loads((EXAMPLES / "stub.ipynb").read_text())
    bases = [_graded(nb) for nb in (correct, _renamed(correct), _alternative(stub), stub,
                                    json.loads((EXAMPLES / "partial.ipynb").read_text()))]
    cells = [["".join(c["source"]) for c in base] for base in bases]
    sentences = [SAME_ANSWER, "The energy has two minima and the transition is where they cross over in depth.",
                 "At large N the susceptibility peak grows linearly with the system size, a first-order sign.",
                 "Discrete weights give an entropy that vanishes at R=1, the origin of the discontinuous jump.",
                 "Hysteresis: between alpha_c and alpha_sp both minima coexist, one of them metastable."]
    tests = ["test_generalization_error", "test_overlap_entropy", "test_critical_load", "test_spinodal_load"]
    hints = [KNOWN + HINT_COMMON, KNOWN + "Off by a factor 2.", "wrong value"]
    codes, results = {}, []
    for i in range(n):
        student = f"s{i:03d}"
        parts = [cells[rng.randrange(len(cells))][k] for k in range(len(cells[0]))]
        if rng.random() < 0.6:  # edited: lines dropped or repeated
            lines = "\n\n".join(parts).splitlines()
            parts = ["\n".join(line for line in lines for _ in range(rng.choice((0, 1, 1, 1, 1, 2))))]
        codes[student] = "\n\n".join(parts)
        picked = rng.sample(sentences, 2)
        answer = {0: picked[0], 1: picked[0].upper(), 2: picked[0] + " " + picked[1],
                  3: picked[1][: len(picked[1]) // 2] + picked[0], 4: "*Your answer here.*"}[rng.randrange(5)]
        manual = [{"question": "written_1", "points": 1.0, "cell": 32, "text": answer, "missing": False,
                   "blank": answer == "*Your answer here.*"}]
        wrong = {t: rng.choice(hints) for t in tests if rng.random() < 0.3}
        if i in (7, 41):  # the same rare wrong answers, a rare mistake among them
            wrong = {"test_overlap_entropy": "wrong value", "test_critical_load": KNOWN + HINT_RARE,
                     "test_spinodal_load": "Off by a factor 2."}
        results.append(Record.from_dict({"student": student, "assignment": EXEMPLAR, "submission": "", "score": 0.0,
                                         "max_score": 4.0, "tests": _tests(wrong), "errors": [], "manual": manual,
                                         "seconds": 1.0}))
    return codes, results


def _rows(pairs):
    return sorted((p.kind, p.a, p.b, p.question, p.score, p.share_a, p.share_b, p.shared, p.flagged, p.shown())
                  for p in pairs)


def test_the_index_finds_the_pairs_that_comparing_every_pair_finds():
    """On a generated cohort (exact copies, renamed and edited code, mixed answers, random wrong
    tests), the indexed search lists the same pairs as comparing every pair, with the same numbers,
    the same flags and the same side-by-side views."""
    codes, results = _generated_cohort()
    template = similarity.graded_code(json.loads((EXAMPLES / "stub.ipynb").read_text()))
    code, _ = similarity.code_pairs(codes, template)
    written, _ = similarity.written_pairs(results, EXEMPLAR)
    behaviour = similarity.behaviour_pairs(results)
    for kind, indexed, every in (("code", code, _all_pairs_code(codes, template)),
                                 ("written", written, _all_pairs_written(results)),
                                 ("behaviour", behaviour, _all_pairs_behaviour(results))):
        assert _rows(indexed) == sorted(every), kind
        flagged = [p for p in indexed if p.flagged]
        assert flagged and len(flagged) < len(indexed), (kind, len(flagged), len(indexed))  # both kinds exercised


def test_a_notebook_parsed_whole_gives_the_code_the_grader_reads(tmp_path):
    """read_code parses a small notebook the grader read with json.loads: the same graded code as
    the grader's streamed reader, for the example submissions and the hostile cohort's notebooks
    (those the grader reads); an nbformat 3 notebook, invalid JSON or a large file go the grader's way."""
    from autograder.course.synth import hostile_cohort
    from autograder.run.notebook import SubmissionError, load_submission

    files = {p.stem: p.read_text() for p in EXAMPLES.glob("*.ipynb")}
    files.update({f"hostile_{k}": content for k, (content, _) in hostile_cohort(EXEMPLAR).items()})
    compared = 0
    for name, content in files.items():
        path = tmp_path / f"{name}.ipynb"
        path.write_text(content)
        try:
            streamed = similarity.graded_code(load_submission(path)[1])
        except SubmissionError:
            continue  # the grader could not read it: its record is unreadable, and read_code reads it the same way
        whole = similarity._parsed_whole(path)
        if whole is not None:
            assert similarity.graded_code(whole) == streamed, name
            compared += 1
        rec = Record.from_dict({"student": name, "assignment": EXEMPLAR, "submission": str(path), "tests": _tests()})
        assert similarity.read_code(rec)[0] == streamed[:similarity.CODE_MAX_CHARS], name
    assert compared >= 10
    assert similarity._parsed_whole(tmp_path / "hostile_old_format.ipynb") is None  # nbformat 3: the grader's way
    assert similarity._parsed_whole(tmp_path / "invalid_json.ipynb") is None


def test_the_outputs_written_on_every_core_are_the_ones_written_in_one_process(cohort, tmp_path, monkeypatch):
    """write_outputs hands the feedback pages, the similarity search and the report to forked
    processes for a large cohort (autograder/cohort/parallel.py): every file the same, byte for byte,
    as written in one process (here forced for this small cohort, in chunks of 3 records)."""
    from autograder.cohort import parallel

    summary, _, _ = cohort
    outputs.write_outputs(summary, tmp_path / "one", workers=1)
    monkeypatch.setattr(parallel, "MIN_RECORDS", 0)
    monkeypatch.setattr(parallel, "CHUNK", 3)
    assert parallel.workers(len(summary.results), 2) == 2
    outputs.write_outputs(summary, tmp_path / "two", workers=2)
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file())
    assert len([f for f in files if f.parts[0] == "feedback"]) == 2 * len(summary.results)
    for f in files:
        assert (tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_a_job_that_fails_in_a_forked_process_fails_the_outputs(monkeypatch):
    from autograder.cohort import parallel

    def boom():
        raise ValueError("a page could not be written")

    with pytest.raises(ValueError, match="a page could not be written"):
        parallel.run([lambda: None, boom, lambda: None], 2)
