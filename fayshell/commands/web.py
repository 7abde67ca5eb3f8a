"""Web cmdlets: Invoke-RestMethod and Invoke-WebRequest (HTTP and HTTPS from this machine: a
node's metrics or health endpoint, a tracing backend's API such as Zipkin's /api/v2).

Requests run in a thread beside the shell's loop (stdlib http.client); Ctrl-C closes the
connection. Certificates are checked unless -SkipCertificateCheck; a redirect from HTTPS to
HTTP is refused unless -AllowInsecureRedirect; headers are never written to verbose output
and a URL in a message has no user, password or query values (any may be a secret). Proxies
are not used (as -NoProxy)."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import ssl
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from fayshell import errorids
from fayshell.commands.data import with_dates
from fayshell.commands.invocation import ErrorRecord, Invocation
from fayshell.commands.registry import Param, cmdlet
from fayshell.lang.integers import Byte
from fayshell.lang.ops import to_string
from fayshell.lang.values import Hashtable, TypedArray

WebRequestMethod = Literal[
    "Default", "Get", "Head", "Post", "Put", "Delete", "Trace", "Options", "Merge", "Patch"
]
METHODS: tuple[str, ...] = get_args(WebRequestMethod)

#: Status codes that send the client elsewhere (Location).
REDIRECTS = frozenset((301, 302, 303, 307, 308))

#: PowerShell's HTTP error, its exception type and id.
HTTP_EXCEPTION = "Microsoft.PowerShell.Commands.HttpResponseException"
FORM = "application/x-www-form-urlencoded"


@dataclass
class Request:
    """One request as the parameters describe it (the URL already carries a GET's -Body)."""

    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    timeout: float | None
    verify: bool
    redirects: int
    insecure_redirect: bool


@dataclass
class WebResponse:
    """What Invoke-WebRequest returns (BasicHtmlWebResponseObject); reads as its Content."""

    StatusCode: int
    StatusDescription: str
    Content: Any
    RawContent: str
    Headers: Hashtable
    RawContentLength: int = 0
    data: bytes = field(default=b"", repr=False)
    content_type: str = field(default="", repr=False)
    TYPE_NAME = "Microsoft.PowerShell.Commands.BasicHtmlWebResponseObject"
    VIEW = "list"

    def __str__(self) -> str:
        return self.Content if isinstance(self.Content, str) else self.RawContent


class WebError(Exception):
    """A request that got no response (connection, name, TLS, timeout), in .NET's words."""


def request_of(
    uri: str,
    method: str,
    body: Any,
    headers: Any,
    content_type: str | None,
    user_agent: str | None,
) -> tuple[str, str, dict[str, str], bytes | None]:
    """The method, URL, headers and body bytes the parameters ask for: a hashtable -Body is
    a GET's query string, or a form for other methods; text is sent as UTF-8."""
    verb = "GET" if method == "Default" else method.upper()
    sent = {str(k): to_string(v) for k, v in (headers or {}).items()}
    sent.setdefault("User-Agent", user_agent or "Mozilla/5.0 (Linux) PowerShell/7.4.0 fayshell")
    data: bytes | None = None
    if isinstance(body, dict) and verb == "GET":
        query = urllib.parse.urlencode({str(k): to_string(v) for k, v in body.items()})
        uri += ("&" if "?" in uri else "?") + query
    elif isinstance(body, dict):
        data = urllib.parse.urlencode({str(k): to_string(v) for k, v in body.items()}).encode()
    elif isinstance(body, (bytes, bytearray)) or (isinstance(body, list) and _all_bytes(body)):
        data = bytes(body)
    elif body is not None:
        data = to_string(body).encode(_charset(content_type or "") or "utf-8")
    if data is not None:
        sent.setdefault("Content-Type", content_type or FORM)
    elif content_type:
        sent.setdefault("Content-Type", content_type)
    return verb, uri, sent, data


def _all_bytes(items: list[Any]) -> bool:
    return all(isinstance(b, int) and 0 <= b < 256 for b in items)


def _charset(content_type: str) -> str | None:
    """The ``charset=`` of a Content-Type, if it names one."""
    for part in content_type.split(";")[1:]:
        name, _, value = part.strip().partition("=")
        if name.lower() == "charset" and value:
            return value.strip('"')
    return None


def send(req: Request, opened: list[http.client.HTTPConnection]) -> WebResponse:
    """Send ``req``, following redirects; each connection opened is put in ``opened`` (so
    the loop can close it to stop a request that was cancelled)."""
    url = req.url
    method, body = req.method, req.body
    for _ in range(req.redirects + 1):
        parts = urllib.parse.urlsplit(url)
        conn = _connection(parts, req)
        opened.append(conn)
        try:
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            conn.request(method, target, body=body, headers=req.headers)
            resp = conn.getresponse()
            data = resp.read()
        except TimeoutError:
            raise WebError(
                "The request was canceled due to the configured HttpClient.Timeout of "
                f"{req.timeout:g} seconds elapsing."
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            raise WebError(_no_response(exc, parts)) from None
        finally:
            conn.close()
        location = resp.getheader("Location")
        if resp.status not in REDIRECTS or not location or req.redirects == 0:
            return _response(resp, data)
        nxt = urllib.parse.urljoin(url, location)
        if parts.scheme == "https" and nxt.startswith("http:") and not req.insecure_redirect:
            raise WebError(f"The redirect from HTTPS to HTTP ({nxt}) is refused.")
        if resp.status == 303 or (resp.status in (301, 302) and method == "POST"):
            method, body = "GET", None
        url = nxt
    raise WebError(f"The maximum redirection count ({req.redirects}) has been exceeded.")


def _connection(parts: urllib.parse.SplitResult, req: Request) -> http.client.HTTPConnection:
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebError(f"The URI '{req.url}' is not an http or https address.")
    if parts.scheme == "http":
        return http.client.HTTPConnection(parts.hostname, parts.port, timeout=req.timeout)
    context = ssl.create_default_context()
    if not req.verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return http.client.HTTPSConnection(
        parts.hostname, parts.port, timeout=req.timeout, context=context
    )


def _no_response(exc: BaseException, parts: urllib.parse.SplitResult) -> str:
    """.NET's words for a request that got no answer: ``Connection refused (host:port)``."""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if isinstance(exc, socket.gaierror):
        return f"Name or service not known ({parts.hostname}:{port})"
    if isinstance(exc, ssl.SSLError):
        return f"The SSL connection could not be established: {exc.reason or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror} ({parts.hostname}:{port})"
    return f"{exc} ({parts.hostname}:{port})"


def _response(resp: http.client.HTTPResponse, data: bytes) -> WebResponse:
    headers = Hashtable()
    for name, value in resp.getheaders():
        old = headers.get(name)
        headers[name] = value if old is None else f"{old}, {value}"
    kind = resp.getheader("Content-Type") or ""
    text = _text(data, kind)
    head = f"HTTP/1.1 {resp.status} {resp.reason}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in resp.getheaders()
    )
    return WebResponse(
        resp.status,
        resp.reason,
        text if text is not None else TypedArray(map(Byte, data), "Byte"),  # a byte[]
        head + "\r\n" + (text if text is not None else ""),
        headers,
        len(data),
        data,
        kind,
    )


#: Content types whose body is text (besides text/*).
TEXT_TYPES = ("json", "xml", "javascript", "x-www-form-urlencoded", "yaml", "csv")


def _text(data: bytes, content_type: str) -> str | None:
    """The body as text when its type is text (or unknown and it decodes), else None."""
    kind = content_type.split(";")[0].strip().lower()
    texty = not kind or kind.startswith("text/") or any(t in kind for t in TEXT_TYPES)
    if not texty:
        return None
    try:
        return data.decode(_charset(content_type) or "utf-8")
    except (UnicodeDecodeError, LookupError):
        return None if kind else data.decode("latin-1")


def rest_value(resp: WebResponse) -> list[Any]:
    """What Invoke-RestMethod outputs for a response: JSON as objects (an array as one
    value, as PowerShell writes it), other text as a string, nothing for an empty body."""
    text = resp.Content if isinstance(resp.Content, str) else None
    if text is None:
        return [resp.data]
    if not text.strip():
        return []
    if "json" in resp.content_type.lower() or text.lstrip()[:1] in ("{", "["):
        try:
            return [with_dates(json.loads(text), dict)]
        except json.JSONDecodeError:
            pass
    return [text]


#: The parameters both cmdlets take.
WEB_PARAMS = [
    Param("Uri", str, position=0, mandatory=True, help="http:// or https:// address."),
    Param("Method", str, choices=METHODS, help="GET unless given."),
    Param("CustomMethod", str, help="Any other method (PROPFIND ...)."),
    Param("Body", "any", help="Text, bytes, or a hashtable (a GET's query, else a form)."),
    Param("InFile", str, help="Send this file's bytes as the body."),
    Param("Headers", "any", help="A hashtable of request headers."),
    Param("ContentType", str, help="The body's Content-Type."),
    Param("UserAgent", str),
    Param("TimeoutSec", int, help="Seconds to wait for an answer (0: no limit)."),
    Param("MaximumRedirection", int, default=5, help="Redirects followed (0: none)."),
    Param("OutFile", str, help="Write the body to this file instead of the output."),
    Param("PassThru", bool, help="With -OutFile: output the result as well."),
    Param("SkipCertificateCheck", bool, help="Accept any certificate (insecure)."),
    Param("AllowInsecureRedirect", bool, help="Follow a redirect from HTTPS to HTTP."),
    Param("SkipHttpErrorCheck", bool, help="An error status is a result, not an error."),
    Param("StatusCodeVariable", str, help="A variable to set to the status code."),
    Param("UseBasicParsing", bool, help="Accepted (parsing is always basic)."),
    Param("NoProxy", bool, help="Accepted (no proxy is ever used)."),
]


@dataclass
class WebCall:
    """The parameters of one Invoke-RestMethod or Invoke-WebRequest call."""

    uri: str
    method: str = "Default"
    custom_method: str | None = None
    body: Any = None
    in_file: str | None = None
    headers: Any = None
    content_type: str | None = None
    user_agent: str | None = None
    timeout_sec: int | None = None
    maximum_redirection: int = 5
    out_file: str | None = None
    pass_thru: bool = False
    skip_certificate_check: bool = False
    allow_insecure_redirect: bool = False
    skip_http_error_check: bool = False
    status_code_variable: str | None = None
    response_headers_variable: str | None = None
    use_basic_parsing: bool = False
    no_proxy: bool = False


async def call(ctx: Invocation, c: WebCall) -> WebResponse | None:
    """Send the request the call describes and check its answer; None when it failed (the
    error written)."""
    body = c.body
    if c.in_file is not None:
        body = ctx.state.resolve_path(c.in_file).read_bytes()
    method = c.custom_method or c.method
    verb, url, headers, data = request_of(
        c.uri, method, body, c.headers, c.content_type, c.user_agent
    )
    req = Request(
        verb,
        url,
        headers,
        data,
        float(c.timeout_sec) if c.timeout_sec else None,
        not c.skip_certificate_check,
        max(c.maximum_redirection, 0),
        c.allow_insecure_redirect,
    )
    ctx.write_verbose(f"{ctx.name}: {verb} {shown(url)} with {len(data or b'')}-byte payload")
    try:
        resp = await _sent(req)
    except WebError as exc:
        ctx.write_error(_failed(ctx, url, str(exc), "System.Net.Http.HttpRequestException"))
        return None
    ctx.write_verbose(f"received {resp.RawContentLength}-byte response of {resp.content_type}")
    return _checked(ctx, c, resp)


async def answer(ctx: Invocation, c: WebCall) -> WebResponse | None:
    """The response to output: None when the call failed, or wrote -OutFile without
    -PassThru."""
    resp = await call(ctx, c)
    return None if c.out_file is not None and not c.pass_thru else resp


async def _sent(req: Request) -> WebResponse:
    """``send`` in a thread; cancelled (Ctrl-C), its connection is closed so the thread ends."""
    opened: list[http.client.HTTPConnection] = []
    try:
        return await asyncio.to_thread(send, req, opened)
    except asyncio.CancelledError:
        for conn in opened:
            conn.close()
        raise


def _checked(ctx: Invocation, c: WebCall, resp: WebResponse) -> WebResponse | None:
    """Set -StatusCodeVariable and -ResponseHeadersVariable; write -OutFile; an error
    status is an error unless -SkipHttpErrorCheck."""
    scope = ctx.state.scope_now
    if c.status_code_variable:
        scope.set(c.status_code_variable.lstrip("$"), resp.StatusCode)
    if c.response_headers_variable:
        scope.set(c.response_headers_variable.lstrip("$"), resp.Headers)
    if resp.StatusCode >= 400 and not c.skip_http_error_check:
        message = (
            "Response status code does not indicate success: "
            f"{resp.StatusCode} ({resp.StatusDescription})."
        )
        ctx.write_error(_failed(ctx, c.uri, message, HTTP_EXCEPTION))
        return None
    if c.out_file is not None:
        ctx.state.resolve_path(c.out_file).write_bytes(resp.data)
    return resp


def shown(url: str) -> str:
    """``url`` as messages show it: without a user or password, and with its query's values
    hidden (either may hold a secret)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    query = "&".join(f"{k}=…" for k, _ in urllib.parse.parse_qsl(parts.query, True))
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def _failed(ctx: Invocation, url: str, message: str, exception: str) -> ErrorRecord:
    return ErrorRecord(
        shown(url),
        "",
        message,
        category="InvalidOperation",
        names_target=True,
        exception=exception,
        error_id=errorids.qualified("WebCmdletWebResponseException", ctx.name),
    )


@cmdlet(
    "Invoke-RestMethod",
    aliases=("irm",),
    synopsis="Send an HTTP(S) request; a JSON answer becomes objects, other text a string.",
    description="An answer that is a JSON array is written as one value, as PowerShell does: "
    "wrap the call in parentheses, or pipe it to Write-Output, to send its items down the "
    "pipeline one by one. An error status (4xx, 5xx) is an error naming it unless "
    "-SkipHttpErrorCheck; a request that gets no answer is one in .NET's words "
    "(Connection refused (host:port)).",
    params=[
        *WEB_PARAMS,
        Param("ResponseHeadersVariable", str, aliases=("RHV",), help="Variable for headers."),
    ],
    examples=[
        ("Invoke-RestMethod http://node1:9411/api/v2/services", "A Zipkin server's services."),
        (
            "(irm http://node1:9100/health).status",
            "One field of a JSON health answer.",
        ),
    ],
)
async def invoke_rest_method(ctx: Invocation, **params: Any) -> list[Any]:
    resp = await answer(ctx, WebCall(**params))
    return [] if resp is None else rest_value(resp)


@cmdlet(
    "Invoke-WebRequest",
    aliases=("iwr",),  # not curl and wget: PowerShell on Linux leaves those to the programs
    synopsis="Send an HTTP(S) request; the answer with its status, headers and content.",
    description="Content is text for a textual Content-Type, else bytes. An error status "
    "(4xx, 5xx) is an error naming it unless -SkipHttpErrorCheck.",
    params=WEB_PARAMS,
    examples=[
        ("(Invoke-WebRequest http://node1:8080/metrics).StatusCode", "200 when it answers."),
        ("iwr http://node1/trace.tar -OutFile trace.tar", "Save a download."),
    ],
)
async def invoke_web_request(ctx: Invocation, **params: Any) -> list[Any]:
    resp = await answer(ctx, WebCall(**params))
    return [] if resp is None else [resp]
