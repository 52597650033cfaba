"""The redaction corpus (issue 26): synthetic look-alike secrets of every kind the red team listed, the
evasions, and realistic CTF-agent transcripts that hold no secret.

Nothing here is a real secret: every token is drawn from a seeded generator in the format of its kind
(with the CRC32 checksum GitHub and npm tokens carry, real base64url JSON in JWTs).  Used by
``tests/redaction/test_corpus.py`` and ``bench/redaction_corpus.py``.
"""

from __future__ import annotations

import base64
import json
import random
import string
import zlib

_RNG = random.Random(26)
_B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"


def _pick(alphabet: str, size: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(size))


def _base62(number: int, width: int) -> str:
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = _B62[digit] + out
    return out.rjust(width, "0")


def _checksummed(prefix: str) -> str:
    """GitHub's and npm's format: 30 random base62 characters and the CRC32 of them in 6 base62 digits."""
    body = _pick(_ALNUM, 30)
    return prefix + body + _base62(zlib.crc32(body.encode()), 6)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": _pick(string.digits, 10), "iat": 1700000000 + _RNG.randrange(10**6)}).encode())
    return f"{header}.{payload}.{_b64url(_RNG.randbytes(32))}"


def _password() -> str:
    return _pick(_ALNUM, 6) + _RNG.choice("!%*^") + _pick(_ALNUM, 6)


def _pem() -> str:
    body = base64.b64encode(_RNG.randbytes(96)).decode()
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body[:64]}\n{body[64:]}\n-----END RSA PRIVATE KEY-----"


# (kind, template with {0} where the secret goes, a generator of the secret)
_KINDS: list[tuple[str, str, object]] = [
    ("aws-access-key-id", "key id {0} in use", lambda: "AKIA" + _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    ("aws-secret-key", "aws_secret_access_key = {0}", lambda: _pick(_ALNUM + "/+", 40)),
    ("github-token", "git clone https://github.com/o/r (token {0})", lambda: _checksummed("ghp_")),
    (
        "github-fine-grained",
        "GH={0}",
        lambda: "github_pat_11" + _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 20) + "_" + _pick(_ALNUM, 59),
    ),
    (
        "slack-token",
        "slack {0}",
        lambda: "xoxb-" + _pick(string.digits, 12) + "-" + _pick(string.digits, 13) + "-" + _pick(_ALNUM, 24),
    ),
    (
        "slack-webhook",
        "post to https://hooks.slack.com/services/{0}",
        lambda: "T" + _pick(_ALNUM.upper(), 8) + "/B" + _pick(_ALNUM.upper(), 10) + "/" + _pick(_ALNUM, 24),
    ),
    ("google-api-key", "maps key {0}", lambda: "AIza" + _pick(_ALNUM + "-_", 35)),
    ("authorization", "Authorization: Basic {0}", lambda: base64.b64encode(f"user:{_password()}".encode()).decode()),
    ("bearer-token", "curl -H 'X-Auth: Bearer {0}'", lambda: _pick(_ALNUM, 40)),
    ("anthropic-key", "ANTHROPIC={0}", lambda: "sk-ant-api03-" + _pick(_ALNUM + "-_", 93) + "AA"),
    ("openai-key", "key {0}", lambda: "sk-proj-" + _pick(_ALNUM + "-_", 48)),
    ("sk-key", "other {0}", lambda: "sk-" + _pick(_ALNUM, 32)),
    ("url-password", "postgres://admin:{0}@db.internal:5432/app", _password),
    ("url-password-empty-user", "REDIS_URL=redis://:{0}@cache:6379/0", _password),
    ("env-secret", "export SERVICE_TOKEN={0}", lambda: "tok-" + _pick(_HEX, 12)),
    ("private-key", "key:\n{0}\nafter", _pem),
    ("stripe-secret-live", "stripe.api_key = '{0}'", lambda: "sk_live_" + _pick(_ALNUM, 24)),
    ("stripe-restricted", "STRIPE_RK {0}", lambda: "rk_live_" + _pick(_ALNUM, 24)),
    ("stripe-test", "using {0} for tests", lambda: "sk_test_" + _pick(_ALNUM, 24)),
    ("stripe-webhook", "endpoint secret {0}", lambda: "whsec_" + _pick(_ALNUM, 32)),
    ("jwt", "session cookie {0}", _jwt),
    ("json-client-secret", '{{"clientId": "app", "clientSecret": "{0}"}}', lambda: _pick(_ALNUM + "~._-", 34)),
    ("json-access-token", '{{"accessToken": "{0}", "expiresIn": 3600}}', lambda: _pick(_ALNUM, 40)),
    ("refresh-token", "refreshToken={0}", lambda: _pick(_ALNUM + "-_", 43)),
    ("db-password-camel", 'config = {{"dbPassword": "{0}"}}', _password),
    (
        "sts-secret-access-key",
        '"Credentials": {{"SecretAccessKey": "{0}", "SessionToken": "x"}}',
        lambda: _pick(_ALNUM + "/+", 40),
    ),
    (
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={0};EndpointSuffix=core.windows.net",
        lambda: base64.b64encode(_RNG.randbytes(64)).decode(),
    ),
    ("mysql-pwd", "MYSQL_PWD={0} mysql -u root", _password),
    ("db-pass", "DB_PASS={0}", _password),
    ("pgpassword", "PGPASSWORD={0} psql -h db", _password),
    ("pypi", "password = {0}", lambda: "pypi-AgEIcHlwaS5vcmc" + _pick(_ALNUM + "-_", 70)),
    ("gitlab-pat", "GITLAB {0}", lambda: "glpat-" + _pick(_ALNUM + "-_", 20)),
    ("sendgrid", "mail via {0}", lambda: "SG." + _pick(_ALNUM + "-_", 22) + "." + _pick(_ALNUM + "-_", 43)),
    ("twilio", "twilio key {0}", lambda: "SK" + _pick(_HEX, 32)),
    ("mailchimp", "MAILCHIMP_API_KEY={0}", lambda: _pick(_HEX, 32) + "-us" + _pick(string.digits, 2)),
    ("telegram", "TELEGRAM_BOT_TOKEN={0}", lambda: _pick(string.digits, 10) + ":AA" + _pick(_ALNUM + "-_", 33)),
    ("discord", "discord_bot_token = '{0}'", lambda: _pick(_HEX, 64)),
    ("npm", "//registry.npmjs.org/:_authToken={0}", lambda: _checksummed("npm_")),
    ("huggingface", "HF token {0}", lambda: "hf_" + _pick(string.ascii_letters, 34)),
    ("square", "square {0}", lambda: "EAAA" + _pick(_ALNUM + "-_", 60)),
    ("shopify", "shop token {0}", lambda: "shpat_" + _pick(_HEX, 32)),
    ("digitalocean", "doctl auth init -t {0}", lambda: "dop_v1_" + _pick(_HEX, 64)),
    ("databricks", "DATABRICKS_HOST=x {0}", lambda: "dapi" + _pick(_HEX, 32)),
    ("hex-40", 'signing = "{0}"', lambda: _pick(_HEX, 40)),
    ("hex-64", "WEBHOOK_SIGNING={0}", lambda: _pick(_HEX, 64)),
]

#: (kind, text, secret): two of every kind (the second in another wording where it has one).
SECRETS: list[tuple[str, str, str]] = []
for _kind, _template, _make in _KINDS:
    for _ in range(2):
        _secret = _make()  # type: ignore[operator]
        SECRETS.append((_kind, _template.format(_secret), _secret))
KINDS = sorted({kind for kind, _t, _s in SECRETS})


def _evade(kind: str, secret: str) -> str:
    """*secret* written so that a plain scan misses it."""
    mid = len(secret) // 2
    if kind == "unicode-escape":
        return secret[:mid] + f"\\u{ord(secret[mid]):04x}" + secret[mid + 1 :]
    if kind == "hex-escape":
        return secret[:mid] + f"\\x{ord(secret[mid]):02x}" + secret[mid + 1 :]
    if kind == "line-break":
        return secret[:mid] + "\n    " + secret[mid:]
    if kind == "url-encoding":
        return secret[:mid] + f"%{ord(secret[mid]):02X}" + secret[mid + 1 :]
    if kind == "zero-width":
        return secret[:mid] + "\u200b" + secret[mid:]
    return secret


_GH = _checksummed("ghp_")
_SK = "sk_live_" + _pick(_ALNUM, 24)
#: (evasion, text, secret): the secret must not survive in any form.
EVASIONS: list[tuple[str, str, str]] = [
    ("unicode-escape", '{"content": "use ' + _evade("unicode-escape", _GH) + '"}', _GH),
    ("hex-escape", "printf 'tok=" + _evade("hex-escape", _SK) + "'", _SK),
    ("line-break", "token:\n  " + _evade("line-break", _GH) + "\n", _GH),
    ("url-encoding", "GET /cb?code=1&t=" + _evade("url-encoding", _SK), _SK),
    ("zero-width", "key " + _evade("zero-width", _GH), _GH),
    ("dotted-capital-i", "İstanbul ekibi: DB_PASSWORD=Xk29!mQz4pLw", "Xk29!mQz4pLw"),
    ("task-name", "task: deploy-with-" + _GH, _GH),
]


def _ctf_transcript(seed: int) -> list[str]:
    """One synthetic CTF agent transcript: code, shell output and notes, with no secret in it."""
    rng = random.Random(seed)
    sha = "".join(rng.choice(_HEX) for _ in range(40))
    digest = "".join(rng.choice(_HEX) for _ in range(64))
    uuid = "-".join("".join(rng.choice(_HEX) for _ in range(n)) for n in (8, 4, 4, 4, 12))
    png = base64.b64encode(bytes(rng.randrange(256) for _ in range(90))).decode()
    word = rng.choice(["admin", "hunter2", "password", "letmein", "secret", "changeme"])
    return [
        "$ cat challenge.py",
        "from Crypto.Cipher import AES",
        "import os, hashlib",
        f"key = 0x{rng.randrange(16**8):08x}",
        "key = os.urandom(16)",
        "iv = os.urandom(16)",
        "cipher = AES.new(key, AES.MODE_CBC, iv)",
        'password = input("Password: ")',
        "if hashlib.sha256(password.encode()).hexdigest() == EXPECTED:",
        '    print("Correct!")',
        f'EXPECTED = "{digest}"',
        f'USERS = {{"admin": {{"username": "admin", "password": "{word}"}}}}',
        f'    "password": "{word}",',
        "token = tokenizer.encode(text)",
        "for key, value in sorted(data.items(), key=lambda item: item[1]):",
        '    print(f"{key} = {value}")',
        "secret = get_secret()",
        'api_key = os.environ["API_KEY"]',
        "api_key = config.api_key",
        "self.secret_key = secret_key",
        "token_type: bearer",
        "max_tokens: 4096",
        f"KEY_SIZE = {rng.choice([128, 256, 2048])}",
        "key_length=32",
        "$ git log --oneline -3",
        f"commit {sha}",
        "Author: Alice <alice@example.com>",
        f"{sha[:7]} fix the padding oracle",
        f"$ sha256sum flag.enc\n{digest}  flag.enc",
        f'"commit": "{sha}",',
        f'"sha256": "{digest}",',
        f"request id {uuid}",
        f'{{"id": "{uuid}", "status": "ok"}}',
        f'<img src="data:image/png;base64,{png}">',
        "$ curl -s http://localhost:8080/login -d 'username=admin&password=admin'",
        '{"error": "invalid password", "code": 401}',
        "password_field = form.find(name='password')",
        f"The secret is stored at offset 0x{rng.randrange(4096):x}; the key schedule uses 10 rounds.",
        "ssh-keygen -t ed25519 -f ./id_key -N ''",
        "passwd: password updated successfully",
        "Thinking: the token is probably in /tmp/flag.txt, let me check the permissions.",
        "export DEBUG=1",
        f"xor_key = [{', '.join(str(rng.randrange(256)) for _ in range(8))}]",
        "key = b'YELLOW SUBMARINE'",
        "keys = list(mapping.keys())",
        "if token is None: raise ValueError('missing token')",
        "credential_path = Path.home() / '.config' / 'app.json'",
        "    secret_name: my-app-secret",
        "access_key_id_length = 20",
    ]


#: Lines of realistic CTF transcripts without any secret (what a redaction there is a false positive).
CLEAN: list[str] = [line for seed in range(24) for line in _ctf_transcript(seed)]
