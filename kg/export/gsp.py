"""An HTTP client of a triple store: the SPARQL 1.1 Graph Store Protocol (adding triples to a graph)
and SPARQL 1.1 Update, with credentials and retries, for `kg push`.

requests does the HTTP. Credentials are a user and password, sent as basic or digest authentication,
whichever the server's challenge names (Virtuoso asks for digest, Fuseki and proxies for basic), or a
bearer token. A request that got no answer, timed out, or was answered 5xx, 408 or 429 is sent again,
up to ``attempts`` times in all, waiting ``backoff`` seconds and then twice as long each time; any other
failure is reported at once. Adding the same ground triples twice leaves a graph as adding them once, so
sending a batch again is safe.

Examples
--------
>>> graph_store_url("http://localhost:7878/store", "http://example.org/kg")
'http://localhost:7878/store?graph=http%3A%2F%2Fexample.org%2Fkg'
>>> graph_store_url("http://localhost:7878/store", None)
'http://localhost:7878/store?default'
>>> answer_text("<html><body><h1>Error</h1><xmp>SR186: No permission</xmp></body></html>")
'Error SR186: No permission'
"""

from __future__ import annotations

import html
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from kg.errors import CredentialsError, RemoteError, UsageError

if TYPE_CHECKING:
    import requests

NTRIPLES = "application/n-triples"
RETRYABLE = frozenset({408, 429})
"""HTTP statuses below 500 that say "try again later" rather than "this request is wrong"."""

PASSWORD_VARIABLE = "KG_PUSH_PASSWORD"
TOKEN_VARIABLE = "KG_PUSH_TOKEN"


@dataclass(frozen=True, repr=False)
class Credentials:
    """A user and password, or a bearer token (never shown in a repr or a message)."""

    user: str | None = None
    password: str | None = None
    token: str | None = None

    def __repr__(self) -> str:
        return f"Credentials(user={self.user!r}, password={'***' if self.password else None}, token=...)"


def read_credentials(
    *,
    user: str | None = None,
    password_file: str | os.PathLike[str] | None = None,
    token_file: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Credentials | None:
    """The credentials the options name: a password or token is read from a file (its first line), or else
    from ``$KG_PUSH_PASSWORD`` / ``$KG_PUSH_TOKEN``; never from the command line itself.

    Raises
    ------
    kg.errors.UsageError
        A password without a user, a user without a password, both a user and a token, or a file
        that cannot be read.

    Examples
    --------
    >>> read_credentials(environ={}) is None
    True
    >>> read_credentials(user="dba", environ={"KG_PUSH_PASSWORD": "s3cret"}).password
    's3cret'
    >>> read_credentials(user="dba", environ={})
    Traceback (most recent call last):
    ...
    kg.errors.UsageError: --user dba needs a password: give --password-file FILE (or set $KG_PUSH_PASSWORD)
    """
    if password_file is not None and user is None:
        raise UsageError("--password-file needs --user")
    if user is not None and token_file is not None:
        raise UsageError("give either --user with --password-file, or --token-file, not both")
    token = read_secret(token_file, "--token-file") if token_file is not None else None
    if token is None and user is None:
        token = environ.get(TOKEN_VARIABLE) or None
    if user is None:
        return None if token is None else Credentials(token=token)
    password = read_secret(password_file, "--password-file") if password_file is not None else None
    if password is None:
        password = environ.get(PASSWORD_VARIABLE)
    if not password:
        raise UsageError(f"--user {user} needs a password: give --password-file FILE (or set ${PASSWORD_VARIABLE})")
    return Credentials(user=user, password=password)


def read_secret(path: str | os.PathLike[str], option: str) -> str:
    """The first line of the file ``path``, without its line end."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file ({option})") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: cannot read it ({option}): {getattr(err, 'strerror', None) or err}") from None
    lines = text.splitlines()
    if not lines or not lines[0]:
        raise UsageError(f"{path}: empty ({option})")
    return lines[0]


def graph_store_url(url: str, graph: str | None) -> str:
    """The Graph Store Protocol URL of ``graph`` (None: the default graph) at the endpoint ``url``."""
    query = urlencode({"graph": graph}) if graph is not None else "default"
    return f"{url}{'&' if '?' in url else '?'}{query}"


class GraphStoreClient:
    """Requests to one server, with its credentials; see the module's docstring.

    Parameters
    ----------
    credentials : Credentials, optional
        Sent when the server asks (user and password), or with every request (a token).
    attempts : int
        How many times a request is sent before its failure is reported (at least 1).
    backoff : float
        Seconds to wait before the second attempt; each later wait is twice the one before.
    timeout : float
        Seconds to wait for a server to answer a request.
    """

    def __init__(
        self,
        *,
        credentials: Credentials | None = None,
        attempts: int = 3,
        backoff: float = 1.0,
        timeout: float = 600.0,
    ) -> None:
        import requests

        self.credentials = credentials
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "abstract-kg (kg push)"
        if credentials is not None and credentials.token:
            self.session.headers["Authorization"] = f"Bearer {credentials.token}"
        self._auth: requests.auth.AuthBase | None = None

    def add(self, url: str, graph: str | None, ntriples: bytes) -> None:
        """Add the N-Triples ``ntriples`` to ``graph`` (None: the default graph) at the Graph Store
        endpoint ``url`` (an HTTP POST)."""
        self.send("POST", graph_store_url(url, graph), data=ntriples, headers={"Content-Type": NTRIPLES})

    def update(self, url: str, sparql: str) -> None:
        """Run the SPARQL update ``sparql`` at the update endpoint ``url`` (as a form, which every server takes)."""
        self.send("POST", url, data={"update": sparql})

    def send(self, method: str, url: str, **options: object) -> requests.Response:
        """Send a request, again while it fails in a way that may pass; return the successful answer.

        Raises
        ------
        kg.errors.CredentialsError
            The server wants credentials that were not given, or refused the ones given.
        kg.errors.RemoteError
            No answer, or an HTTP error, after the last attempt (or at once where another attempt
            would fail the same way).
        """
        wait = self.backoff
        for attempt in range(1, self.attempts + 1):
            try:
                return self._send_once(method, url, **options)
            except CredentialsError:
                raise
            except RemoteError as err:
                if not err.retryable or attempt == self.attempts:
                    if attempt > 1:
                        raise RemoteError(
                            f"{err} (after {attempt} attempts)", status=err.status, retryable=err.retryable
                        ) from err
                    raise
            time.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def _send_once(self, method: str, url: str, **options: object) -> requests.Response:
        import requests

        try:
            answer = self.session.request(method, url, auth=self._auth, timeout=self.timeout, **options)
            if answer.status_code == 401 and self._auth is None and self.credentials and self.credentials.user:
                self._auth = self._auth_for(answer.headers.get("WWW-Authenticate", ""))
                answer = self.session.request(method, url, auth=self._auth, timeout=self.timeout, **options)
        except requests.ConnectionError as err:
            raise RemoteError(f"cannot connect to {url}: {_connection_failure(err)}", retryable=True) from err
        except requests.Timeout as err:
            raise RemoteError(f"{url}: no answer within {self.timeout:g} s", retryable=True) from err
        except requests.RequestException as err:
            raise RemoteError(f"{url}: {err}") from err
        if answer.ok:
            return answer
        status = answer.status_code
        described = f"{_without_query(url)}: HTTP {status} {answer.reason}" + _body_line(answer.text)
        if status in (401, 403):
            raise CredentialsError(described + self._credentials_hint(answer), status=status)
        raise RemoteError(described, status=status, retryable=status >= 500 or status in RETRYABLE)

    def _auth_for(self, challenge: str) -> requests.auth.AuthBase:
        """Digest authentication where the server's challenge asks for it, else basic."""
        from requests.auth import HTTPBasicAuth, HTTPDigestAuth

        assert self.credentials is not None and self.credentials.user and self.credentials.password
        scheme = HTTPDigestAuth if challenge.lower().lstrip().startswith("digest") else HTTPBasicAuth
        return scheme(self.credentials.user, self.credentials.password)

    def _credentials_hint(self, answer: requests.Response) -> str:
        if answer.status_code == 403:
            return "; the credentials given may not write there" if self.credentials else ""
        if self.credentials is None:
            scheme = answer.headers.get("WWW-Authenticate", "").split(" ", 1)[0].lower() or "some"
            return f"; it asks for {scheme} credentials: give --user and --password-file, or --token-file"
        return "; the credentials given were refused"

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> GraphStoreClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _without_query(url: str) -> str:
    return url.split("?", 1)[0]


def _connection_failure(err: BaseException) -> str:
    """Why a connection failed, in a few words (requests nests the reason several levels down)."""
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, ConnectionResetError):
            return "connection reset"
        cause = cause.__cause__ or cause.__context__
    text = str(err)
    if "Name or service not known" in text or "nodename nor servname" in text:
        return "unknown host"
    if "RemoteDisconnected" in text or "Connection aborted" in text:
        return "the server closed the connection without answering"
    return text.splitlines()[0][:200] if text else type(err).__name__


_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


def answer_text(body: str) -> str:
    """The readable words of a server's error answer (HTML error pages are common), on one line."""
    text = html.unescape(_TAG.sub(" ", body)) if "<" in body else body
    return _SPACE.sub(" ", text).strip()


def _body_line(body: str) -> str:
    """``": "`` and the start of a server's error answer, if it has one."""
    text = answer_text(body or "")
    return f": {text[:300]}" if text else ""
