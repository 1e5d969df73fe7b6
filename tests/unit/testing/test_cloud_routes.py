"""The scripted server's cloud parts follow the real protocols, checked against the real
clients' own code: event-stream frames botocore decodes (and refuses when a byte is
wrong), SigV4 signatures botocore makes (and a changed byte or secret breaks), and the
OAuth token endpoint's checks of a service account's JWT assertion."""

from __future__ import annotations

import base64
import json
import time

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from workspace_agent.testing import cloud, eventstream, sigv4


def decoded(data: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return list(buffer)


def test_chunks_decode_as_bedrock_sends_them():
    events = [{"type": "message_start", "n": n} for n in range(3)]
    frames = b"".join(eventstream.chunk(event, n) for n, event in enumerate(events))
    messages = decoded(frames)
    assert [m.headers[":event-type"] for m in messages] == ["chunk"] * 3
    assert [m.headers[":message-type"] for m in messages] == ["event"] * 3
    payloads = [json.loads(m.payload) for m in messages]
    assert [json.loads(base64.b64decode(p["bytes"])) for p in payloads] == events


def test_an_exception_frame_and_a_broken_byte():
    (message,) = decoded(eventstream.exception("throttlingException", "Too many requests"))
    assert message.headers[":message-type"] == "exception"
    assert message.headers[":exception-type"] == "throttlingException"
    frame = bytearray(eventstream.chunk({"type": "ping"}))
    frame[-6] ^= 1  # a byte of the payload: the message CRC no longer holds
    with pytest.raises(ChecksumMismatch):
        decoded(bytes(frame))


def signed(secret: str = "secret", service: str = "bedrock", body: bytes = b'{"a":1}'):
    url = "http://127.0.0.1:8000/model/anthropic.claude-x-v1:0/invoke"
    request = AWSRequest("POST", url, data=body, headers={"content-type": "application/json"})
    SigV4Auth(Credentials("AKIDTEST", secret), service, "us-east-1").add_auth(request)
    prepared = request.prepare()
    headers = {k.lower(): v for k, v in prepared.headers.items()}
    headers["host"] = "127.0.0.1:8000"
    return "/model/anthropic.claude-x-v1:0/invoke", headers, body


def test_a_botocore_signature_holds_and_a_changed_one_does_not():
    known = {"AKIDTEST": "secret"}
    target, headers, body = signed()
    assert sigv4.problem("POST", target, headers, body, known, "bedrock", "us-east-1") is None
    assert sigv4.problem("POST", target, headers, b'{"a":2}', known, "bedrock") == sigv4.MISMATCH
    assert sigv4.problem("POST", target, *signed("other")[1:], known, "bedrock") == sigv4.MISMATCH
    assert sigv4.problem("POST", target, headers, body, {"AKIDELSE": "x"}, "bedrock") == (
        sigv4.UNKNOWN_KEY
    )
    scoped = sigv4.problem("POST", target, *signed(service="s3")[1:], known, "bedrock")
    assert scoped is not None and "correct service: 'bedrock'" in scoped[1]
    assert sigv4.problem("POST", target, {}, body, known, "bedrock") == sigv4.MISSING


def jwt(key: rsa.RSAPrivateKey, **claims: object) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    now = int(time.time())
    body = {
        "iss": "sa@p.iam.gserviceaccount.com",
        "aud": cloud.AUDIENCE,
        "scope": cloud.CLOUD_PLATFORM,
        "iat": now,
        "exp": now + 3600,
        **claims,
    }
    unsigned = f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(body)}"
    signature = key.sign(unsigned.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{unsigned}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def grant(assertion: str) -> bytes:
    return f"grant_type={cloud.JWT_BEARER.replace(':', '%3A')}&assertion={assertion}".encode()


def test_the_token_endpoint_checks_the_assertion():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    state = cloud.Cloud()
    state.script = {"google_public_keys": {"sa@p.iam.gserviceaccount.com": public.decode()}}

    status, answer = state.token(grant(jwt(key)))
    assert status == 200 and answer["token_type"] == "Bearer"
    assert answer["access_token"].startswith("ya29.") and answer["expires_in"] == 3599

    for claims, said in (
        ({"aud": "http://127.0.0.1/token"}, "audience must be"),
        ({"scope": "email"}, "Invalid OAuth scope"),
        ({"exp": int(time.time()) + 7200}, "60 minutes"),
        ({"iss": "other@p.iam.gserviceaccount.com"}, "Invalid JWT Signature"),
    ):
        status, answer = state.token(grant(jwt(key, **claims)))
        assert (status, answer["error"]) == (400, "invalid_grant")
        assert said in answer["error_description"]
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert state.token(grant(jwt(other)))[1]["error_description"] == "Invalid JWT Signature."
    assert state.token(b"grant_type=password")[1]["error"] == "unsupported_grant_type"


def test_vertex_takes_only_tokens_it_issued():
    state = cloud.Cloud()
    route = cloud.route(
        "/v1/projects/p/locations/us-east5/publishers/anthropic/models/m@1:rawPredict"
    )
    assert route == cloud.Route("vertex", "m@1", False, "p", "us-east5")
    body = {"anthropic_version": "v", "messages": []}
    refused = state.refusal(route, "", {"authorization": "Bearer ya29.made-up"}, b"", body)
    assert refused is not None and refused.status == 401
    assert refused.body["error"]["status"] == "UNAUTHENTICATED"


def test_invoke_model_and_raw_predict_answer_json_to_the_real_sdk_clients(tmp_path):
    """The non-streamed routes (InvokeModel, rawPredict), through the SDK's sync clients."""
    import anthropic
    from google.oauth2 import service_account as google_sa

    from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

    from tests.support.providers import AWS_KEY, AWS_SECRET, accounts, service_account

    with ScriptedModelServer({"conversations": []}) as server:
        key_file, public = service_account(tmp_path, server)
        server.load(
            script_of(reply(text("from Bedrock")), reply(text("from Vertex")), **accounts(public))
        )
        bedrock = anthropic.AnthropicBedrock(
            aws_access_key=AWS_KEY,
            aws_secret_key=AWS_SECRET,
            aws_region="us-east-1",
            base_url=server.url,
        )
        answer = bedrock.messages.create(
            model="anthropic.claude-haiku-4-5-20251001-v1:0",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
        )
        assert answer.content[0].text == "from Bedrock"
        credentials = google_sa.Credentials.from_service_account_file(
            str(key_file), scopes=[cloud.CLOUD_PLATFORM]
        )
        vertex = anthropic.AnthropicVertex(
            region="global", project_id="p", credentials=credentials, base_url=f"{server.url}/v1"
        )
        answer = vertex.messages.create(
            model="claude-haiku-4-5@20251001",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
        )
        assert answer.content[0].text == "from Vertex"
        paths = [r.path for r in server.requests]
        assert paths == [
            "/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke",
            "/token",
            "/v1/projects/p/locations/global/publishers/anthropic/models/claude-haiku-4-5@20251001:rawPredict",
        ]
        assert [r.rejected for r in server.requests] == [None, None, None]
