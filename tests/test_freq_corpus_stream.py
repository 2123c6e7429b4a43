"""The report's frequency corpus is counted line by line (issue 35 item 7: it was held whole,
about 15x its size in memory): :func:`mtstrata.corpus.iter_lines` streams a file with the
validation of :func:`mtstrata.corpus.decode_lines`, and the counts equal those of the whole
file read at once."""

from __future__ import annotations

import pytest

from mtstrata import corpus
from mtstrata.errors import InputError
from mtstrata.report import buckets

CASES = [b"a b\nc d\n", b"a b\nc d", b"\xef\xbb\xbfone\r\ntwo\r\n", b"x\n\n\ny\n", b"\n",
         "caf\u00e9 \u00fcber .\n".encode(), b"last line without newline\r\n tail"]


@pytest.mark.parametrize("data", CASES)
def test_streamed_lines_equal_the_whole_file(tmp_path, data):
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    assert list(corpus.iter_lines(str(p))) == corpus.decode_lines(data, str(p))


@pytest.mark.parametrize("data, line, says", [
    (b"", None, "empty"),
    (b"ok\nbad \xff byte\n", 2, "not valid UTF-8"),
    (b"ok\nok\nu\x00t\n", 3, "NUL byte"),
])
def test_bad_files_are_refused_naming_the_line(tmp_path, data, line, says):
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    with pytest.raises(InputError, match=says) as e:
        list(corpus.iter_lines(str(p)))
    assert e.value.line == line


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\xef\xbb\xbfok\nb\xe9d\n",
                                  b"ok\r\nok\nu\x00t\n", b"\xef\xbb\xbf\xff"])
def test_streamed_errors_say_what_the_whole_file_reader_says(tmp_path, data):
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    with pytest.raises(InputError) as whole:
        corpus.decode_lines(data, str(p))
    with pytest.raises(InputError) as streamed:
        list(corpus.iter_lines(str(p)))
    assert str(streamed.value) == str(whole.value)


def test_lines_are_read_one_at_a_time(tmp_path):
    # the lines before a bad byte are served before the error: nothing is read ahead whole
    p = tmp_path / "f.txt"
    p.write_bytes(b"first line\nsecond line\n\xff\n")
    it = corpus.iter_lines(str(p))
    assert next(it) == "first line" and next(it) == "second line"
    with pytest.raises(InputError):
        next(it)


def test_counts_equal_those_of_the_file_read_whole(tmp_path):
    text = "The cat sat on the mat.\nThe dog, the cat's friend, sat too!\n\n(1,200 words)\n"
    p = tmp_path / "f.txt"
    p.write_text(text, encoding="utf-8")
    streamed = buckets.count_words(corpus.iter_lines(str(p)))
    whole = buckets.word_counts(buckets.tokenize(corpus.decode_lines(text.encode(), str(p))))
    assert streamed.counts == whole and streamed.lines == 4
    assert streamed.counts["the"] == 2 and streamed.counts["The"] == 2
