"""``[xml]``: a parsed XML document as PowerShell's XML adapter shows it, for the XML a
node's tools write (``lttng --mi xml``, test reports, configuration files).

An element's attributes and child elements are its properties (``$x.sessions.session.name``);
a child element that has neither attributes nor child elements reads as its text; several of
one name read as an array. .NET's own members (Name, InnerText, OuterXml, SelectNodes,
GetAttribute ...) are there too, after the document's own names, as in PowerShell. XPath is
ElementTree's subset (paths, ``*``, ``//``, ``..``, ``[@a]``, ``[@a='v']``, ``[tag]``, ``[n]``)
plus a last step ``/@name`` that selects attributes; anything else is an error naming it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fayshell.lang.values import NetException
from fayshell.records import MISSING

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

XML_DOCUMENT = "System.Xml.XmlDocument"
_LAST_ATTRIBUTE = re.compile(r"(.*)/@([\w:.\-]+|\*)")


def _et() -> Any:
    """ElementTree, imported at the first XML (not by every shell's start)."""
    import xml.etree.ElementTree

    return xml.etree.ElementTree


def local(tag: str) -> str:
    """An element's or attribute's name without its namespace (``{uri}name`` -> ``name``)."""
    return tag.rsplit("}", 1)[-1]


def namespace_of(tag: str) -> str:
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def parse(text: str) -> XmlDocument:
    """``[xml]$text``: the document, or .NET's kind of message for XML that does not parse."""
    try:
        root = _et().fromstring(text)
    except _et().ParseError as exc:
        raise NetException(f"{exc}.", "System.Xml.XmlException") from None
    declaration = re.match(r"\s*<\?xml\s+(.*?)\?>", text)
    return XmlDocument(root, declaration.group(1).strip() if declaration else None)


def to_xml(value: Any) -> XmlDocument:
    """The ``[xml]`` cast: a document stays one; lines (Get-Content's) are joined."""
    if isinstance(value, XmlDocument):
        return value
    if isinstance(value, (list, tuple)):
        return parse("\n".join("" if v is None else str(v) for v in value))
    return parse("" if value is None else str(value))


class _XmlNode:
    """What a document and an element share: XPath and search by tag name, from the node
    ``_scope`` gives (the document's XPath starts above its root element)."""

    def _scope(self) -> tuple[XmlDocument, ET.Element]:
        raise NotImplementedError

    def SelectNodes(self, xpath: str, namespaces: Any = None) -> list[Any]:  # noqa: N802
        doc, at = self._scope()
        return select(doc, at, str(xpath), namespaces)

    def SelectSingleNode(self, xpath: str, namespaces: Any = None) -> Any:  # noqa: N802
        found = self.SelectNodes(xpath, namespaces)
        return found[0] if found else None

    def GetElementsByTagName(self, name: str) -> list[XmlElement]:  # noqa: N802
        """The elements below this node named ``name`` (``*``: all), in document order."""
        doc, at = self._scope()
        return [XmlElement(e, doc) for e in at.iter() if e is not at and _named(e, str(name))]


class XmlDocument(_XmlNode):
    """A parsed document: its root element is its property (``$x.root``)."""

    TYPE_NAME = XML_DOCUMENT

    def __init__(self, root: ET.Element, declaration: str | None = None) -> None:
        self._root = root
        self.xml = declaration
        self._top = _et().Element("document")  # a parent for the root: absolute XPath starts here
        self._top.append(root)
        self._parents: dict[ET.Element, ET.Element] | None = None

    # PowerShell's adapted members
    def ps_get(self, name: str) -> Any:
        if name.lower() == "xml" and self.xml is not None:
            return self.xml
        if local(self._root.tag).lower() == name.lower():
            return self.adapt(self._root)
        return MISSING

    def ps_names(self) -> list[str]:
        return (["xml"] if self.xml is not None else []) + [local(self._root.tag)]

    # .NET's members
    @property
    def DocumentElement(self) -> XmlElement:  # noqa: N802 - .NET property name
        return XmlElement(self._root, self)

    @property
    def OuterXml(self) -> str:  # noqa: N802 - .NET property name
        head = f"<?xml {self.xml}?>" if self.xml else ""
        return head + _et().tostring(self._root, encoding="unicode")

    @property
    def InnerXml(self) -> str:  # noqa: N802 - .NET property name
        return self.OuterXml

    @property
    def InnerText(self) -> str:  # noqa: N802 - .NET property name
        return "".join(self._root.itertext())

    @property
    def ChildNodes(self) -> list[XmlElement]:  # noqa: N802 - .NET property name
        return [XmlElement(self._root, self)]

    @property
    def Name(self) -> str:  # noqa: N802 - .NET property name
        return "#document"

    def _scope(self) -> tuple[XmlDocument, ET.Element]:
        return self, self._top

    def CreateElement(self, name: str) -> XmlElement:  # noqa: N802 - .NET method name
        return XmlElement(_et().Element(str(name)), self)

    def Save(self, path: str) -> None:  # noqa: N802 - .NET method name
        """Write the document (relative paths from the process's directory, as .NET's)."""
        text = _et().tostring(self._root, encoding="unicode")
        head = f"<?xml {self.xml}?>\n" if self.xml else ""
        Path(str(path)).write_text(head + text + "\n", encoding="utf-8")

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return XML_DOCUMENT

    def __str__(self) -> str:
        return XML_DOCUMENT

    # shared by the elements
    def adapt(self, el: ET.Element) -> Any:
        """An element as PowerShell's adapter gives it: its text when it has neither
        attributes nor child elements, else the element."""
        if not el.attrib and len(el) == 0:
            return el.text or ""
        return XmlElement(el, self)

    def parent_of(self, el: ET.Element) -> ET.Element | None:
        if self._parents is None:
            self._parents = {c: p for p in self._root.iter() for c in p}
        return self._parents.get(el)

    def changed(self) -> None:
        """The tree changed (a child added or removed): parents are found again."""
        self._parents = None


class XmlElement(_XmlNode):
    """One element: its attributes and child elements are its properties."""

    TYPE_NAME = "System.Xml.XmlElement"

    def __init__(self, el: ET.Element, doc: XmlDocument) -> None:
        self._el = el
        self._doc = doc

    def __eq__(self, other: object) -> bool:
        return isinstance(other, XmlElement) and other._el is self._el

    def __hash__(self) -> int:
        return id(self._el)

    # PowerShell's adapted members
    def ps_get(self, name: str) -> Any:
        low = name.lower()
        attr = next((k for k in self._el.attrib if local(k).lower() == low), None)
        if attr is not None:
            return self._el.attrib[attr]
        if name == "#text":
            return self._el.text if self._el.text and self._el.text.strip() else MISSING
        kids = [self._doc.adapt(c) for c in self._el if local(c.tag).lower() == low]
        if not kids:
            return MISSING
        return kids[0] if len(kids) == 1 else kids

    def ps_names(self) -> list[str]:
        names = [local(k) for k in self._el.attrib]
        for child in self._el:
            if local(child.tag) not in names:
                names.append(local(child.tag))
        return names + (["#text"] if self._el.text and self._el.text.strip() else [])

    def ps_set(self, name: str, value: Any) -> bool:
        """``$el.id = 5`` sets the attribute, ``$el.title = 'x'`` a text-only child's text,
        ``$el.InnerText = 'x'`` the element's text, as PowerShell's adapter."""
        text = "" if value is None else str(value)
        low = name.lower()
        attr = next((k for k in self._el.attrib if local(k).lower() == low), None)
        if attr is not None:
            self._el.set(attr, text)
            return True
        if low in ("innertext", "#text"):
            self.InnerText = text
            return True
        kids = [c for c in self._el if local(c.tag).lower() == low]
        if len(kids) == 1 and not kids[0].attrib and len(kids[0]) == 0:
            kids[0].text = text
            return True
        raise NetException(
            f'Cannot set "{name}" because only strings can be used as values to set '
            "XmlNode properties.",
            "System.Management.Automation.SetValueInvocationException",
        )

    # .NET's members
    @property
    def Name(self) -> str:  # noqa: N802 - .NET property name
        return local(self._el.tag)

    @property
    def LocalName(self) -> str:  # noqa: N802 - .NET property name
        return local(self._el.tag)

    @property
    def NamespaceURI(self) -> str:  # noqa: N802 - .NET property name
        return namespace_of(self._el.tag)

    @property
    def NodeType(self) -> str:  # noqa: N802 - .NET property name
        return "Element"

    @property
    def InnerText(self) -> str:  # noqa: N802 - .NET property name
        return "".join(self._el.itertext())

    @InnerText.setter
    def InnerText(self, text: str) -> None:  # noqa: N802 - .NET property name
        for child in list(self._el):
            self._el.remove(child)
        self._el.text = text
        self._doc.changed()

    @property
    def InnerXml(self) -> str:  # noqa: N802 - .NET property name
        inner = self._el.text or ""
        return inner + "".join(_et().tostring(c, encoding="unicode") for c in self._el)

    @property
    def OuterXml(self) -> str:  # noqa: N802 - .NET property name
        tail, self._el.tail = self._el.tail, None
        try:
            return _et().tostring(self._el, encoding="unicode")
        finally:
            self._el.tail = tail

    @property
    def Attributes(self) -> list[XmlAttribute]:  # noqa: N802 - .NET property name
        return [XmlAttribute(k, v) for k, v in self._el.attrib.items()]

    @property
    def HasAttributes(self) -> bool:  # noqa: N802 - .NET property name
        return bool(self._el.attrib)

    @property
    def ChildNodes(self) -> list[XmlElement]:  # noqa: N802 - .NET property name
        return [XmlElement(c, self._doc) for c in self._el]

    @property
    def HasChildNodes(self) -> bool:  # noqa: N802 - .NET property name
        return len(self._el) > 0 or bool(self._el.text)

    @property
    def ParentNode(self) -> Any:  # noqa: N802 - .NET property name
        parent = self._doc.parent_of(self._el)
        return self._doc if parent is None else XmlElement(parent, self._doc)

    @property
    def OwnerDocument(self) -> XmlDocument:  # noqa: N802 - .NET property name
        return self._doc

    def GetAttribute(self, name: str) -> str:  # noqa: N802 - .NET method name
        return self._el.get(str(name), "")

    def HasAttribute(self, name: str) -> bool:  # noqa: N802 - .NET method name
        return str(name) in self._el.attrib

    def SetAttribute(self, name: str, value: Any) -> None:  # noqa: N802 - .NET method name
        self._el.set(str(name), "" if value is None else str(value))

    def RemoveAttribute(self, name: str) -> None:  # noqa: N802 - .NET method name
        self._el.attrib.pop(str(name), None)

    def AppendChild(self, child: XmlElement) -> XmlElement:  # noqa: N802 - .NET method name
        self._el.append(child._el)
        child._doc = self._doc
        self._doc.changed()
        return child

    def RemoveChild(self, child: XmlElement) -> XmlElement:  # noqa: N802 - .NET method name
        try:
            self._el.remove(child._el)
        except ValueError:
            raise NetException(
                "The node to be removed is not a child of this node.", "System.ArgumentException"
            ) from None
        self._doc.changed()
        return child

    def _scope(self) -> tuple[XmlDocument, ET.Element]:
        return self._doc, self._el

    def ToString(self) -> str:  # noqa: N802 - .NET method name
        return self.Name

    def __str__(self) -> str:
        return self.Name

    def __repr__(self) -> str:
        return f"<XmlElement {self.Name}>"


class XmlAttribute:
    """An attribute that XPath's ``/@name`` selected (or an element's Attributes)."""

    TYPE_NAME = "System.Xml.XmlAttribute"
    MEMBERS = ("Name", "Value")

    def __init__(self, name: str, value: str) -> None:
        self.Name = local(name)
        self.LocalName = local(name)
        self.Value = value
        self.InnerText = value

    def ps_get(self, name: str) -> Any:
        return self.Value if name == "#text" else MISSING

    def __str__(self) -> str:
        return self.Value


def _named(el: ET.Element, name: str) -> bool:
    return name == "*" or local(el.tag) == name or el.tag == name


def select(doc: XmlDocument, context: ET.Element, xpath: str, namespaces: Any) -> list[Any]:
    """The nodes ``xpath`` selects from ``context`` (an absolute path from the document)."""
    path, attribute = xpath.strip(), None
    m = _LAST_ATTRIBUTE.fullmatch(path)
    if m:
        path, attribute = m.group(1) or ".", m.group(2)
    base = context
    if path.startswith("/"):
        base, path = doc._top, "." + path
    ns = {str(k): str(v) for k, v in namespaces.items()} if namespaces else None
    try:
        found = base.findall(path, ns)
    except (SyntaxError, KeyError, TypeError) as exc:
        raise NetException(
            f"'{xpath}' is not an XPath fayshell can evaluate ({exc}); it takes paths, *, //, "
            "'..', [@a], [@a='v'], [tag], [n] and a last step /@name",
            "System.Xml.XPath.XPathException",
        ) from None
    if attribute is None:
        return [XmlElement(e, doc) for e in found]
    return [
        XmlAttribute(k, v)
        for e in found
        for k, v in e.attrib.items()
        if attribute == "*" or local(k) == attribute
    ]
