import pytest

from mtstrata import corpus
from mtstrata.errors import InputError


def write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_bom_and_crlf_are_normalised(tmp_path):
    p = write(tmp_path, "a.txt", b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert corpus.read_text(p).lines == ["one", "two"]


def test_empty_lines_are_segments_and_counted(tmp_path):
    p = write(tmp_path, "a.txt", b"one\n\nthree\n")
    f = corpus.read_text(p)
    assert f.lines == ["one", "", "three"]
    assert f.n_empty == 1
    assert "a.txt: 1" in corpus.empty_line_warning([f])


def test_unicode_line_separator_does_not_split(tmp_path):
    p = write(tmp_path, "a.txt", "one\u2028still one\ntwo\n".encode())
    assert corpus.read_text(p).lines == ["one\u2028still one", "two"]


def test_last_line_without_newline(tmp_path):
    p = write(tmp_path, "a.txt", b"one\ntwo")
    assert corpus.read_text(p).lines == ["one", "two"]


def test_bad_bytes_name_line_and_offset(tmp_path):
    p = write(tmp_path, "bad.txt", b"fine\nab\xe9cd\n")
    with pytest.raises(InputError) as e:
        corpus.read_text(p)
    msg = str(e.value)
    assert "bad.txt, line 2" in msg and "byte offset 2" in msg and "0xe9" in msg


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, data):
    p = write(tmp_path, "empty.txt", data)
    with pytest.raises(InputError, match="empty.txt: the file is empty"):
        corpus.read_text(p)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        corpus.read_text(str(tmp_path / "nope.txt"))
    with pytest.raises(InputError, match="is a directory"):
        corpus.read_text(str(tmp_path))


def test_mismatched_counts_list_every_file(tmp_path):
    r = corpus.read_text(write(tmp_path, "ref.txt", b"a\nb\nc\n"))
    h = corpus.read_text(write(tmp_path, "hyp.txt", b"a\nb\n"))
    with pytest.raises(InputError) as e:
        corpus.check_aligned([r], [h])
    assert "ref.txt: 3 lines" in str(e.value) and "hyp.txt: 2 lines" in str(e.value)


def test_stdin(tmp_path):
    f = corpus.read_text("-", stdin=b"x\ny\n")
    assert f.lines == ["x", "y"] and f.stem == "stdin"
    with pytest.raises(InputError, match="only once"):
        corpus.read_all(["-", "-"])
