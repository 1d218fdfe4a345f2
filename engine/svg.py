"""A small SVG writer shared by the games' pictures (``State.svg``): escaping, elements, a document.

Games lay out their pictures in their own units and hand them to :func:`document`, which
scales them to the requested width through the ``viewBox``. Everything is inline: no external
fonts, images or style sheets, so a file shows the same in any browser or converter. Colours are
presentation attributes rather than CSS, which every SVG renderer honours.
"""

from __future__ import annotations

from collections.abc import Iterable

SVG_NS = "http://www.w3.org/2000/svg"

#: Generic families only: a picture must not depend on a font being installed.
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}


def escape(text: str) -> str:
    """Text made safe for XML character data and (double- or single-quoted) attribute values."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def number(value: float) -> str:
    """A coordinate as short text: at most two decimals, no trailing zeros (``12``, ``3.5``)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attribute_name(name: str) -> str:
    # Python names stand for SVG ones: ``class_`` -> ``class``, ``data_square`` -> ``data-square``.
    return name.rstrip("_").replace("_", "-")


def _attributes(attrs: dict[str, object]) -> str:
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        text = number(value) if isinstance(value, float) else str(value)
        parts.append(f' {_attribute_name(name)}="{escape(text)}"')
    return "".join(parts)


def element(tag: str, *children: str, text: str | None = None, **attrs: object) -> str:
    """One element: ``attrs`` (None values dropped, floats shortened) and either escaped
    ``text`` or already-built ``children``; empty elements are self-closed."""
    opening = f"<{tag}{_attributes(attrs)}"
    if text is not None:
        return f"{opening}>{escape(text)}</{tag}>"
    if not children:
        return f"{opening}/>"
    return f"{opening}>{''.join(children)}</{tag}>"


def group(children: Iterable[str], **attrs: object) -> str:
    """A ``<g>`` of elements, one per line, so a picture reads well as text too."""
    body = "\n".join(children)
    return f"<g{_attributes(attrs)}>\n{body}\n</g>" if body else f"<g{_attributes(attrs)}/>"


def label(x: float, y: float, content: str, size: float, **attrs: object) -> str:
    """Text centred on ``(x, y)`` (both ways; ``text_anchor`` may say otherwise across), in
    the pictures' font."""
    attrs.setdefault("font_family", FONT)
    attrs.setdefault("text_anchor", "middle")
    # The baseline is placed by hand: renderers disagree on dominant-baseline (librsvg drew
    # "central" digits visibly high); 0.35 em below the middle centres digits and capitals.
    place = {"x": float(x), "y": float(y + 0.35 * size), "font_size": float(size)}
    return f"<text{_attributes(place | attrs)}>{escape(content)}</text>"


def document(
    width: float, height: float, size: int, title: str, body: Iterable[str], description: str = ""
) -> str:
    """A complete SVG file: a picture laid out in ``width`` x ``height`` units, ``size`` pixels
    wide (the height in proportion), with a ``<title>`` and an optional ``<desc>``."""
    pixels_high = round(size * height / width)
    root = _attributes(
        {
            "xmlns": SVG_NS,
            "width": size,
            "height": pixels_high,
            "viewBox": f"0 0 {number(width)} {number(height)}",
            "role": "img",
        }
    )
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<svg{root}>",
        element("title", text=title),
    ]
    if description:
        lines.append(element("desc", text=description))
    lines.extend(body)
    lines.append("</svg>")
    return "\n".join(lines) + "\n"
