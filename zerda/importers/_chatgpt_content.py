"""The text of a ChatGPT export message's `content`, by its `content_type`.

`text` and `multimodal_text` hold `parts` (strings; in multimodal text also objects
such as `image_asset_pointer`, kept as `attachments` in the message metadata);
`code`, `execution_output`, `tether_quote` and `system_error` hold `text`;
`tether_browsing_display` holds `result`. The model's hidden reasoning (`thoughts`,
`reasoning_recap`) is not imported.
"""

from __future__ import annotations

from typing import Any

REASONING = frozenset({"thoughts", "reasoning_recap"})
TEXT_FIELD = {
    "code": "text",
    "execution_output": "text",
    "tether_quote": "text",
    "system_error": "text",
    "tether_browsing_display": "result",
}
KEPT = ("language", "url", "title", "domain", "summary")  # content fields noted in metadata
ATTACHMENT = ("content_type", "asset_pointer", "size_bytes", "width", "height", "name")

Taken = tuple[str, dict[str, Any]]


def message_text(content: Any) -> Taken | str:
    """(text, metadata) of `content`, or the reason it is skipped."""
    if not isinstance(content, dict):
        return "no content"
    kind = content.get("content_type")
    if kind is not None and not isinstance(kind, str):
        return "content type"
    if kind in REASONING:
        return "thoughts"
    metadata: dict[str, Any] = {"content_type": kind} if kind != "text" else {}
    metadata |= {k: content[k] for k in KEPT if isinstance(content.get(k), str) and content[k]}
    field = TEXT_FIELD.get(str(kind), "text")
    if isinstance(content.get(field), str):
        return content[field], metadata
    if isinstance(content.get("parts"), list):
        return _parts(content["parts"], metadata)
    return f"content {kind}"


def _parts(parts: list[Any], metadata: dict[str, Any]) -> Taken:
    """Text parts joined by newlines (null parts dropped); other parts as attachments."""
    texts: list[str] = []
    attachments: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):  # an audio transcription
                texts.append(part["text"])
            noted = {k: part[k] for k in ATTACHMENT if k in part and part[k] is not None}
            if noted:
                attachments.append(noted)
    if attachments:
        metadata["attachments"] = attachments
    return "\n".join(texts), metadata
