"""A small Hugging Face Hub on 127.0.0.1 for tests: dataset repos in memory, the API calls that `HfApi` makes to
create a repo and commit to it, and the file and tree endpoints that `hf_hub_download` and `datasets` read.

It answers as the Hub does for what swapbench uses (regular, non-LFS uploads; one branch, main), so that a push and
an evaluation of the pushed dataset run through the real client libraries with HF_ENDPOINT pointing here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


@dataclass
class Commit:
    oid: str
    files: dict[str, bytes]
    summary: str


@dataclass
class Repo:
    commits: list[Commit] = field(default_factory=list)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def at(self, revision: str) -> Commit | None:
        if revision in ("main", "HEAD"):
            return self.head
        return next((c for c in self.commits if c.oid == revision), None)


def _oid(*parts: bytes) -> str:
    return hashlib.sha1(b"".join(parts)).hexdigest()


class FakeHub:
    def __init__(self):
        self.repos: dict[str, Repo] = {}
        self.requests: list[str] = []  # "METHOD path", in order
        self.validated: list[str] = []  # the cards sent to /api/validate-yaml
        self.forbidden: set[str] = set()  # file paths answered with 403, as a file the token may not read
        self.read_only = False  # commits refused with 403, as for a token without write access
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeHub:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def create(self, repo_id: str) -> Repo:
        if repo_id not in self.repos:
            files = {".gitattributes": b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"}
            self.repos[repo_id] = Repo([Commit(_oid(repo_id.encode(), b"initial"), files, "initial commit")])
        return self.repos[repo_id]

    def commit(self, repo_id: str, files: dict[str, bytes], deleted: list[str], summary: str) -> Commit:
        repo = self.repos[repo_id]
        tree = {**repo.head.files, **files}
        for path in deleted:
            tree.pop(path, None)
        oid = _oid(repo.head.oid.encode(), *(p.encode() + b"\0" + c for p, c in sorted(tree.items())))
        repo.commits.append(Commit(oid, tree, summary))
        return repo.commits[-1]


def _handler(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _send(self, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, value, status: int = 200) -> None:
            self._send(status, json.dumps(value).encode(), {"Content-Type": "application/json"})

        def _error(self, status: int, code: str, message: str, head: bool = False) -> None:
            self._send(
                status,
                json.dumps({"error": message}).encode(),
                {"Content-Type": "application/json", "X-Error-Code": code, "X-Error-Message": message},
                head=head,
            )

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _repo_commit(self, repo_id: str, revision: str, head: bool = False):
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(404, "RepoNotFound", f"Repository not found: {repo_id}", head)
                return None
            commit = repo.at(unquote(revision))
            if commit is None:
                self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}", head)
            return commit

        def do_HEAD(self) -> None:
            self._route("HEAD")

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def _route(self, method: str) -> None:
            url = urlparse(self.path)
            hub.requests.append(f"{method} {url.path}")
            parts = [unquote(p) for p in url.path.strip("/").split("/")]
            query = parse_qs(url.query)
            if method == "POST" and parts[:3] == ["api", "repos", "create"]:
                return self._create()
            if method == "POST" and parts[:2] == ["api", "validate-yaml"]:
                return self._validate_yaml()
            if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
                repo_id, rest = "/".join(parts[2:4]), parts[4:]
                if method == "GET" and not rest:
                    return self._info(repo_id, "main")
                if method == "GET" and rest[0] == "revision" and len(rest) == 2:
                    return self._info(repo_id, rest[1])
                if method == "GET" and rest[0] == "tree" and len(rest) >= 2:
                    return self._tree(
                        repo_id,
                        rest[1],
                        "/".join(rest[2:]),
                        "recursive" in query and query["recursive"][0].lower() == "true",
                    )
                if method == "POST" and rest[0] == "paths-info" and len(rest) == 2:
                    return self._paths_info(repo_id, rest[1])
                if method == "POST" and rest[0] == "preupload":
                    return self._preupload()
                if method == "POST" and rest[0] == "commit":
                    return self._commit(repo_id)
            if parts[:1] == ["datasets"] and len(parts) >= 6 and parts[3] == "resolve":
                return self._resolve(method, "/".join(parts[1:3]), parts[4], "/".join(parts[5:]))
            self._error(404, "NotFound", f"the test Hub does not serve {method} {url.path}")

        def _create(self) -> None:
            body = json.loads(self._body())
            repo_id = f"{body['organization']}/{body['name']}" if body.get("organization") else body["name"]
            hub.create(repo_id)
            self._json({"url": f"{hub.url}/datasets/{repo_id}", "name": repo_id, "id": repo_id})

        def _validate_yaml(self) -> None:
            """The Hub checks a card's metadata before it commits it; here, that huggingface_hub reads it."""
            from huggingface_hub import DatasetCard

            content = json.loads(self._body())["content"]
            hub.validated.append(content)
            try:
                DatasetCard(content)
            except ValueError as err:
                return self._json({"errors": [{"message": str(err)}]}, status=400)
            self._json({"errors": [], "warnings": []})

        def _info(self, repo_id: str, revision: str) -> None:
            commit = self._repo_commit(repo_id, revision)
            if commit is None:
                return
            self._json(
                {
                    "id": repo_id,
                    "_id": repo_id,
                    "sha": commit.oid,
                    "private": False,
                    "disabled": False,
                    "gated": False,
                    "downloads": 0,
                    "likes": 0,
                    "tags": [],
                    "author": repo_id.split("/")[0],
                    "lastModified": "2026-01-01T00:00:00.000Z",
                    "createdAt": "2026-01-01T00:00:00.000Z",
                    "siblings": [{"rfilename": path} for path in sorted(commit.files)],
                }
            )

        def _entries(self, commit: Commit, paths: list[str], recursive: bool, listing: bool) -> list[dict]:
            """Tree entries: of `paths` themselves, or (listing) of what lies under the one folder in `paths`."""
            entries, folders = [], {}
            for path in commit.files:
                for i in range(1, path.count("/") + 1):
                    folders.setdefault("/".join(path.split("/")[:i]), None)
            if listing:
                prefix = f"{paths[0]}/" if paths[0] else ""
                names = [p for p in [*commit.files, *folders] if p.startswith(prefix)]
                if not recursive:
                    names = [p for p in names if "/" not in p[len(prefix) :]]
            else:
                names = [p for p in paths if p in commit.files or p in folders]
            for name in sorted(names):
                if name in commit.files:
                    content = commit.files[name]
                    entries.append({"type": "file", "oid": _oid(b"blob", content), "size": len(content), "path": name})
                else:
                    entries.append({"type": "directory", "oid": _oid(b"tree", name.encode()), "size": 0, "path": name})
            return entries

        def _tree(self, repo_id: str, revision: str, path: str, recursive: bool) -> None:
            commit = self._repo_commit(repo_id, revision)
            if commit is None:
                return
            if path and path not in commit.files and not any(p.startswith(path + "/") for p in commit.files):
                return self._error(404, "EntryNotFound", f"{path} does not exist on {revision}")
            self._json(self._entries(commit, [path], recursive, listing=True))

        def _paths_info(self, repo_id: str, revision: str) -> None:
            commit = self._repo_commit(repo_id, revision)
            if commit is None:
                return
            body = self._body()
            if self.headers.get("Content-Type", "").startswith("application/json"):
                paths = json.loads(body)["paths"]
            else:
                paths = parse_qs(body.decode())["paths"]
            self._json(self._entries(commit, paths, recursive=False, listing=False))

        def _preupload(self) -> None:
            files = json.loads(self._body())["files"]
            self._json({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]})

        def _commit(self, repo_id: str) -> None:
            if repo_id not in hub.repos:
                return self._error(404, "RepoNotFound", f"Repository not found: {repo_id}")
            if hub.read_only:
                return self._error(403, "Forbidden", "You don't have the rights to create a commit in this repo")
            lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
            header = next(line["value"] for line in lines if line["key"] == "header")
            parent = header.get("parentCommit")
            if parent and parent != hub.repos[repo_id].head.oid:
                return self._error(412, "PreconditionFailed", "parent commit is not the head of main")
            files = {
                line["value"]["path"]: base64.b64decode(line["value"]["content"])
                for line in lines
                if line["key"] == "file"
            }
            if any(line["key"] == "lfsFile" for line in lines):
                return self._error(400, "BadRequest", "the test Hub takes regular uploads only")
            deleted = [line["value"]["path"] for line in lines if line["key"] == "deletedFile"]
            commit = hub.commit(repo_id, files, deleted, header["summary"])
            self._json(
                {
                    "commitUrl": f"{hub.url}/datasets/{repo_id}/commit/{commit.oid}",
                    "commitOid": commit.oid,
                    "pullRequestUrl": None,
                }
            )

        def _resolve(self, method: str, repo_id: str, revision: str, path: str) -> None:
            head = method == "HEAD"
            commit = self._repo_commit(repo_id, revision, head)
            if commit is None:
                return
            if path in hub.forbidden:
                return self._error(403, "Forbidden", f"access to {path} is restricted", head)
            if path not in commit.files:
                return self._error(404, "EntryNotFound", f"{path} does not exist on {revision}", head)
            content = commit.files[path]
            headers = {
                "X-Repo-Commit": commit.oid,
                "ETag": f'"{_oid(b"blob", content)}"',
                "Content-Type": "application/octet-stream",
                "Accept-Ranges": "bytes",
            }
            ranged = self.headers.get("Range")
            if ranged and ranged.startswith("bytes=") and not head:
                start, _, end = ranged[len("bytes=") :].partition("-")
                start = int(start or 0)
                end = min(int(end) if end else len(content) - 1, len(content) - 1)
                headers["Content-Range"] = f"bytes {start}-{end}/{len(content)}"
                return self._send(206, content[start : end + 1], headers)
            if head:
                self.send_response(200)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                return
            self._send(200, content, headers)

    return Handler
