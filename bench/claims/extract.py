#!/usr/bin/env python3
"""Writes the claim-verification extracts in bench/claims/data/ from the
upstream files (not run by `make bench`; the extracts are committed).

    extract.py wice-dev   <WiCE data/entailment_retrieval/claim/dev.jsonl>
    extract.py wice-test  <WiCE data/entailment_retrieval/claim/test.jsonl>
    extract.py factcheck-gpt <Factcheck-GPT subtasks/subtask3_claim_evidence_stance.jsonl>
    extract.py begin-wow  <BEGIN wow/begin_test_wow.tsv>

Each output line: {"id", "claim", "passage", "context", "label", "gold"} with
label one of supported / partial / not_supported and gold the set's own label.
Sampling is deterministic (rows ordered by a hash of their id), so a re-run
writes the same file.
"""
import hashlib, json, re, sys

STOP = set("""a an the and or but if then so as of at by for from in into on onto to up with within without
over under about above below after before between through during than too very is are was were be been being
am do does did have has had will would shall should can could may might must i me my we our us you your he him
his she her it its they them their this that these those there here what which who whom whose when where why
how all any both each every few more most other some such only own same just also not no""".split())

def words(s):
    return [w for w in re.findall(r"[\w']+", s.lower()) if w not in STOP]

def order(key):
    return hashlib.sha256(key.encode()).hexdigest()

def is_meta(s):
    return s.startswith("(meta data)")

def meta_text(s):
    # "(meta data) PUBLISHED DATETIME: 19.08.2019 09:06" -> "Published 19.08.2019 09:06"
    name, _, value = s[len("(meta data) "):].partition(":")
    return f"{name.strip().capitalize()}: {value.strip()}"

def paragraphs(sentences):
    """Evidence sentences as page text: a sentence ending in terminal
    punctuation runs on in its paragraph; one without it (a heading, a menu
    item, a dateline) stands alone, as HTML blocks do once made text."""
    out, cur = [], []
    for s in sentences:
        s = s.strip()
        if not s:
            continue
        cur.append(s)
        if not re.search(r"[.!?][\"'”’)\]]*$", s):
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return "\n\n".join(out)

MAX_CONTIGUOUS = 12  # sentences: about what one packed chunk holds

def wice_passage(r):
    ev = r["evidence"]
    title = next((meta_text(e).split(": ", 1)[1] for e in ev if e.startswith("(meta data) TITLE:")), "")
    # The page's dateline: its publication date (the day, ISO), which
    # annotators saw with the page; a chunk carries it as document context.
    published = next((e.split(":", 1)[1].strip()[:10] for e in ev if e.startswith("(meta data) PUBLISHED DATETIME:")), "")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", published):
        title = f"{title}\nPublished {published}" if title else f"Published {published}"
    sets = [s for s in r["supporting_sentences"] if s]
    if sets:
        best = min(sets, key=lambda s: (max(s) - min(s), len(s)))
        lo, hi = min(best), max(best)
        if hi - lo + 3 <= MAX_CONTIGUOUS:
            idx = list(range(max(0, lo - 1), min(len(ev), hi + 2)))
            groups = [idx]
        else:
            # Too far apart for one chunk: each supporting sentence with its
            # neighbours, as excerpts in document order.
            keep = sorted({j for i in best for j in (i - 1, i, i + 1) if 0 <= j < len(ev)})
            groups, cur = [], []
            for j in keep:
                if cur and j != cur[-1] + 1:
                    groups.append(cur)
                    cur = []
                cur.append(j)
            groups.append(cur)
        texts = []
        for g in groups:
            sents = [meta_text(ev[j]) if is_meta(ev[j]) else ev[j] for j in g
                     if not is_meta(ev[j]) or j in best]
            texts.append(paragraphs(sents))
        return "\n\n".join(t for t in texts if t), title, "annotated"
    # No supporting sentence (not supported): the five-sentence stretch of the
    # page sharing most of the claim's words, as a search for the claim's
    # topic would find and a model would cite.
    cw = set(words(r["claim"]))
    body = [i for i, e in enumerate(ev) if not is_meta(e)]
    best, best_n = body[:5], -1
    for k in range(len(body)):
        win = body[k:k + 5]
        n = len(cw & set(w for i in win for w in words(ev[i])))
        if n > best_n:
            best, best_n = win, n
    return paragraphs([ev[i] for i in best]), title, "closest"

WICE_LABELS = {"supported": "supported", "partially_supported": "partial", "not_supported": "not_supported"}
WICE_QUOTA = {"supported": 10**6, "not_supported": 10**6, "partially_supported": 80}

def wice(path, name):
    rows = [json.loads(l) for l in open(path)]
    rows.sort(key=lambda r: order(r["meta"]["id"]))
    taken, out = {}, []
    for r in rows:
        lab = r["label"]
        if taken.get(lab, 0) >= WICE_QUOTA[lab]:
            continue
        passage, title, how = wice_passage(r)
        if not passage.strip():
            continue
        taken[lab] = taken.get(lab, 0) + 1
        out.append({"id": r["meta"]["id"], "claim": r["claim"].strip(), "passage": passage, "context": title,
                    "label": WICE_LABELS[lab], "gold": lab, "passage_from": how})
    return out

FC_LABELS = {"completely-support": "supported", "partially-support": "partial", "refute": "not_supported",
             "irrelevant": "not_supported"}
FC_QUOTA = {"completely-support": 150, "partially-support": 100, "refute": 120, "irrelevant": 100}

def factcheck(path):
    rows = [json.loads(l) for l in open(path)]
    for i, r in enumerate(rows):
        r["id"] = f"fc{i:05d}"
    rows.sort(key=lambda r: order(r["id"]))
    taken, out = {}, []
    for r in rows:
        lab = r["stance"]
        if taken.get(lab, 0) >= FC_QUOTA[lab] or not r["evidence"].strip():
            continue
        taken[lab] = taken.get(lab, 0) + 1
        out.append({"id": r["id"], "claim": r["claim"].strip(), "passage": r["evidence"].strip(), "context": "",
                    "label": FC_LABELS[lab], "gold": lab})
    return out

BEGIN_LABELS = {"Fully attributable": "supported", "Not fully attributable": "not_supported"}
BEGIN_QUOTA = 200  # per label; "Generic" responses state nothing to check and are left out

def begin(path):
    """BEGIN's Wizard-of-Wikipedia test split: a dialogue system's response
    against the Wikipedia knowledge snippet it should be grounded in."""
    lines = open(path, encoding="utf-8").read().split("\n")
    head = lines[0].split("\t")
    rows = []
    for i, line in enumerate(lines[1:]):
        if not line.strip():
            continue
        r = dict(zip(head, line.split("\t")))
        r["id"] = f"begin{i:05d}"
        rows.append(r)
    rows.sort(key=lambda r: order(r["id"]))
    taken, out = {}, []
    for r in rows:
        lab = r["begin_label"].strip()
        if lab not in BEGIN_LABELS or taken.get(lab, 0) >= BEGIN_QUOTA:
            continue
        if not r["knowledge"].strip() or not r["response"].strip():
            continue
        taken[lab] = taken.get(lab, 0) + 1
        out.append({"id": r["id"], "claim": r["response"].strip(), "passage": r["knowledge"].strip(), "context": "",
                    "label": BEGIN_LABELS[lab], "gold": lab.lower().replace(" ", "_")})
    return out

def main():
    name, path = sys.argv[1], sys.argv[2]
    rows = factcheck(path) if name == "factcheck-gpt" else begin(path) if name == "begin-wow" else wice(path, name)
    rows.sort(key=lambda r: r["id"])
    for r in rows:
        print(json.dumps(r, ensure_ascii=False))

main()
