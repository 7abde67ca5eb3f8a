"""fayshell.lang.generic: HashSet, Queue and Stack, on their own and from the language."""

from __future__ import annotations

import pytest

from fayshell.errors import RuntimeFayError
from fayshell.lang.generic import HashSet, Queue, Stack, new_collection
from fayshell.lang.ops import OperatorError


def test_hash_set_keeps_each_item_once_case_sensitively() -> None:
    s = HashSet()
    assert (s.Add("a"), s.Add("a"), s.Add("A")) == (True, False, True)
    s.UnionWith(["b", "a"])
    s.IntersectWith(["a", "b", "z"])
    assert s == ["a", "b"] and s.Remove("a") and not s.Remove("a")
    s.ExceptWith("b")
    assert s == []


def test_queue_and_stack_orders_and_empty_errors() -> None:
    q, st = Queue([1]), Stack()
    q.Enqueue(2)
    st.Push(1)
    st.Push(2)
    assert (q.Dequeue(), q.Peek(), st.Pop(), st.Peek()) == (1, 2, 2, 1)
    for empty in (Queue().Dequeue, Stack().Pop):
        with pytest.raises(OperatorError, match="empty"):
            empty()


def test_new_collection_knows_the_type_names() -> None:
    assert new_collection("System.Collections.Generic.Stack[int]", [1, 2]) == [2, 1]  # top first
    assert new_collection("System.Collections.Generic.HashSet[string]", ["x", "x"]) == ["x"]
    assert new_collection("System.Collections.Generic.SortedSet[int]") is None


async def test_generic_collections_from_the_language(shell) -> None:
    out = await shell.run(
        "$s = [System.Collections.Generic.HashSet[string]]::new(); $s.Add('a'); $s.add('a'); "
        "$s.Count; $q = New-Object 'System.Collections.Generic.Queue[int]'; $q.Enqueue(5); "
        "$q.Enqueue(6); $q.Dequeue(); $q | ForEach-Object { $_ * 2 }; "
        "$d = [System.Collections.Generic.Dictionary[string,int]]::new(); $d['k'] = 1; "
        "$d.ContainsKey('k'); $s.GetType().Name"
    )
    assert out == [True, False, 1, 5, 12, True, "HashSet`1"]
    with pytest.raises(RuntimeFayError) as info:
        await shell.run("[System.Collections.Generic.Stack[int]]::new().Pop()")
    assert "Stack empty." in info.value.message


async def test_array_bounds_typed_new_arrays_sorted_dictionaries(shell) -> None:
    out = await shell.run(
        "$a = 1..3; $a.GetUpperBound(0); $a.GetLowerBound(0); $a.Rank; $a.GetValue(1); "
        "$z = New-Object int[] 3; $z -join ','; ([string[]]::new(2)).Count; "
        "$s = [System.Collections.Generic.SortedDictionary[string,int]]::new(); "
        "$s['b'] = 2; $s['a'] = 1; $s.Keys -join ','; "
        "$v = 0; $s.TryGetValue('b', [ref]$v); $v; $s.TryGetValue('q', [ref]$v); $null -eq $v"
    )
    assert out == [2, 0, 1, 2, "0,0,0", 2, "a,b", True, 2, False, True]


async def test_generic_list_is_its_own_type(shell) -> None:
    """List[T] was a plain array: Remove wrote nothing (PowerShell prints True), Add kept
    '5' as text in a List[int], and New-Object's capacity became an item."""
    out = await shell.run(
        "$l = [System.Collections.Generic.List[int]]::new(); $l.Add('5'); $l.Add(3); "
        "$l[0].GetType().Name; $l.Remove(3); $l.Remove(9); $l.GetType().Name; "
        "(New-Object 'System.Collections.Generic.List[string]' 10).Count; "
        "$s = [System.Collections.Generic.List[string]]::new([string[]]('b', 'a')); "
        "$s.Sort(); $s -join ','; $s.Insert(0, 7); $s[0].GetType().Name"
    )
    assert out == ["Int32", True, False, "List`1", 0, "a,b", "String"]
