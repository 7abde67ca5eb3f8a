"""Invoke-RestMethod and Invoke-WebRequest against a real HTTP server on this machine
(http.server in a thread): JSON and text answers, what is sent (method, body, headers),
redirects, error statuses, a refused connection, a timeout and -OutFile."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.fixtures.shell import Shell


class Handler(BaseHTTPRequestHandler):
    """/list and /one answer JSON; /echo answers what it was sent; /moved redirects to /one;
    /slow answers after two seconds; /bin answers bytes; anything else is 404."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        routes = {
            "/list": ("application/json", b'[{"name":"a"},{"name":"b"}]'),
            "/one": ("application/json; charset=utf-8", b'{"status":"ok","n":3}'),
            "/text": ("text/plain", "caf\u00e9\n".encode()),
            "/bin": ("application/octet-stream", bytes(range(10))),
        }
        path = self.path.split("?")[0]
        if path == "/moved":
            self._answer(302, "text/plain", b"", {"Location": "/one"})
        elif path == "/slow":
            time.sleep(2)
            self._answer(200, "text/plain", b"late")
        elif path == "/echo" or self.command != "GET":
            self._echo()
        elif path in routes:
            self._answer(200, *routes[path])
        else:
            self._answer(404, "text/plain", b"no such thing")

    do_POST = do_PUT = do_DELETE = do_GET  # noqa: N815 - http.server's names

    def _echo(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(size).decode()
        seen = {
            "method": self.command,
            "path": self.path,
            "body": body,
            "type": self.headers.get("Content-Type"),
            "token": self.headers.get("X-Token"),
        }
        self._answer(200, "application/json", json.dumps(seen).encode())

    def _answer(
        self, code: int, kind: str, data: bytes, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_json_becomes_objects_and_an_array_is_one_value(shell: Shell, site: str) -> None:
    out = await shell.run(
        f"(irm {site}/one).status; $x = 0; irm {site}/list | % {{ $x++ }}; $x; "
        f"(irm {site}/list).Count; (irm {site}/list)[1].name; irm {site}/text"
    )
    assert out == ["ok", 1, 2, "b", "caf\u00e9\n"]


async def test_what_is_sent(shell: Shell, site: str) -> None:
    (get, post, put) = await shell.run(
        f"irm {site}/echo -Body @{{q='a b'; n=2}}; "
        f"irm {site}/echo -Method Post -Body @{{q='x'}} -Headers @{{'X-Token'='t0k'}}; "
        f"irm {site}/echo -Method Put -Body '{{\"k\":1}}' -ContentType application/json"
    )
    assert get["method"] == "GET" and get["path"] == "/echo?q=a+b&n=2" and get["body"] == ""
    assert (post["method"], post["body"], post["type"], post["token"]) == (
        "POST",
        "q=x",
        "application/x-www-form-urlencoded",
        "t0k",
    )
    assert (put["method"], put["body"], put["type"]) == ("PUT", '{"k":1}', "application/json")


async def test_web_request_status_headers_content_and_redirects(shell: Shell, site: str) -> None:
    out = await shell.run(
        f"$r = iwr {site}/moved; $r.StatusCode; $r.Content; "
        f"(iwr {site}/moved -MaximumRedirection 0 -SkipHttpErrorCheck).StatusCode; "
        f"(iwr {site}/bin).Content.Count; (iwr {site}/text).Headers['Content-Type']"
    )
    assert out == [200, '{"status":"ok","n":3}', 302, 10, "text/plain"]


async def test_errors_name_the_status_or_why_no_answer_came(shell: Shell, site: str) -> None:
    out = await shell.run(
        f"try {{ irm {site}/nope }} catch [Microsoft.PowerShell.Commands.HttpResponseException] "
        "{ $_.Exception.Message; $_.FullyQualifiedErrorId }; "
        f"iwr {site}/nope -SkipHttpErrorCheck -StatusCodeVariable sc | Out-Null; $sc"
    )
    assert out == [
        "Response status code does not indicate success: 404 (Not Found).",
        "WebCmdletWebResponseException,Microsoft.PowerShell.Commands.InvokeRestMethodCommand",
        404,
    ]
    (refused, late) = await shell.run(
        "try { irm http://127.0.0.1:1/ } catch { $_.Exception.Message }; "
        f"try {{ irm {site}/slow -TimeoutSec 1 }} catch {{ $_.Exception.Message }}"
    )
    assert refused == "Connection refused (127.0.0.1:1)"
    assert late.endswith("HttpClient.Timeout of 1 seconds elapsing.")


async def test_out_file_writes_the_body(shell: Shell, site: str, tmp_path: Path) -> None:
    out = await shell.run(
        f"Set-Location '{tmp_path}'; iwr {site}/bin -OutFile b.bin; "
        f"irm {site}/one -OutFile o.json -PassThru | % n"
    )
    assert out == [3]
    assert (tmp_path / "b.bin").read_bytes() == bytes(range(10))
    assert json.loads((tmp_path / "o.json").read_text())["n"] == 3


async def test_messages_hide_what_may_be_a_secret(shell: Shell) -> None:
    out = await shell.run(
        "irm 'http://user:pw@127.0.0.1:1/x?token=SECRET' -ErrorAction SilentlyContinue "
        "-ErrorVariable bad -Verbose 4>&1; $bad[0].TargetObject"
    )
    text = "\n".join(map(str, out))
    assert "SECRET" not in text and "pw" not in text
    assert out[-1] == "http://127.0.0.1:1/x?token=…"
