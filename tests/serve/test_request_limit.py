"""The limit on requests under way at once (kg.serve.app.RequestLimit), driven as uvicorn drives it."""

from __future__ import annotations

import anyio
from starlette.responses import PlainTextResponse

from kg.serve.app import RequestLimit


def test_requests_past_the_limit_get_503_with_retry_after_at_once() -> None:
    async def scenario() -> list[list[dict]]:
        release = anyio.Event()

        async def slow(scope, receive, send) -> None:
            await release.wait()
            await PlainTextResponse("answered")(scope, receive, send)

        limit = RequestLimit(slow, limit=2)
        answers: list[list[dict]] = []

        async def request() -> None:
            messages: list[dict] = []

            async def receive() -> dict:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict) -> None:
                messages.append(message)

            await limit({"type": "http", "method": "GET", "path": "/", "headers": []}, receive, send)
            answers.append(messages)

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(request)
            await anyio.sleep(0.2)
            assert len(answers) == 1 and limit.active == 2  # the third was refused without waiting
            release.set()
        await request()  # the slots came free
        return answers

    answers = anyio.run(scenario)
    statuses = [messages[0]["status"] for messages in answers]
    assert statuses == [503, 200, 200, 200]
    refused = answers[0]
    assert (b"retry-after", b"1") in refused[0]["headers"]
    assert refused[1]["body"] == b"the server is busy: 2 requests under way; try again shortly\n"
