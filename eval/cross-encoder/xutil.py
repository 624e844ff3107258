"""Shared helpers: the cross-encoder's second segment for a candidate span, folds, loading."""
import json, os, zlib

DATA = os.environ.get('XENC_DATA', os.path.expanduser('~/.cache/xenc/data'))


def span_input(span):
    """'heading > heading: span' as the index embeds it (table rows with their header names); when the answerer's
    quote runs past the sentence (a bare reply or a list lead-in), the rest of the quote is appended."""
    b = span['embeddingText']
    if span['quote'] != span['text'] and span['quote'].startswith(span['text']):
        b = b + span['quote'][len(span['text']):]
    return ' '.join(b.split())


def fold_of(qid, k=3):
    return zlib.crc32(qid.encode()) % k


def load_candidates():
    return json.load(open(f'{DATA}/candidates.json'))


def unique_spans(record):
    """Candidate spans of a question, first (best-ranked passage) occurrence of each input text kept."""
    seen, out = set(), []
    for s in record['spans']:
        key = span_input(s)
        if key in seen:
            continue
        seen.add(key)
        out.append(s)
    return out
