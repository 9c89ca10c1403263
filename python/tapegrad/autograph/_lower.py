"""Lowers `return`, `break` and `continue` into flag variables, so that every block runs to its end.

A block that may jump sets a flag (``do_return``/``retval_``, ``break_N``, ``continue_N``) instead,
and the statements after it run under ``if not flag:``. Where one branch of an ``if`` always
jumps, the statements after the ``if`` move into the other branch instead (no flag test needed:
``if x > 0: return x`` / ``return -x`` becomes one ``if`` that sets ``retval_`` in both branches).
A loop that may be left early gets the flags in its ``_ag_flags`` attribute; the conversion pass
adds ``not flag`` to its condition. ``for ... else`` / ``while ... else`` become the loop followed
by ``if not break_N:``.
"""
import ast

RETURN_FLAG, RETURN_VALUE = "do_return", "retval_"

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
LOOPS = (ast.For, ast.While)


def name(ident, store=False):
    return ast.Name(id=ident, ctx=ast.Store() if store else ast.Load())


def assign(ident, value):
    return ast.Assign(targets=[name(ident, store=True)], value=value)


def not_flags(flags):
    tests = [ast.UnaryOp(op=ast.Not(), operand=name(f)) for f in flags]
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.And(), values=tests)


def contains(node, kinds, stop):
    """Whether node holds a node of `kinds` below it, not looking inside nodes of `stop`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, kinds):
            return True
        if not isinstance(child, stop) and contains(child, kinds, stop):
            return True
    return False


def _blocks(stmt):
    """The statement lists directly inside stmt (if/else bodies, try handlers, with bodies, ...)."""
    for field, value in ast.iter_fields(stmt):
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield stmt, field
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, (ast.ExceptHandler, ast.match_case)):
                    yield item, "body"


class _Jump:
    """One kind of jump to lower: which statements it is, what replaces them, which flag guards."""

    def __init__(self, kinds, stop, replace, flags):
        self.kinds, self.stop, self.replace, self.flags = kinds, stop, replace, flags

    def is_jump(self, stmt):
        return isinstance(stmt, self.kinds)

    def may_jump(self, stmt):
        return self.is_jump(stmt) or (not isinstance(stmt, self.stop) and contains(stmt, self.kinds, self.stop))

    def always_jumps(self, block):
        last = block[-1] if block else None
        if self.is_jump(last):
            return True
        return isinstance(last, ast.If) and bool(last.orelse) and self.always_jumps(last.body) \
            and self.always_jumps(last.orelse)

    def lower(self, stmts):
        out = []
        for k, stmt in enumerate(stmts):
            if self.is_jump(stmt):
                out.extend(ast.copy_location(s, stmt) for s in self.replace(stmt))
                return out  # the rest of the block is unreachable
            if not self.may_jump(stmt):
                out.append(stmt)
                continue
            rest = stmts[k + 1:]
            if isinstance(stmt, ast.If) and rest:
                if self.always_jumps(stmt.body):
                    stmt.orelse, rest = stmt.orelse + rest, []
                elif stmt.orelse and self.always_jumps(stmt.orelse):
                    stmt.body, rest = stmt.body + rest, []
            self.enter(stmt)
            out.append(stmt)
            if rest:
                out.append(ast.copy_location(ast.If(test=not_flags(self.flags), body=self.lower(rest), orelse=[]),
                                             rest[0]))
            return out
        return out

    def enter(self, stmt):
        if isinstance(stmt, LOOPS):  # only return lowering looks into loops (see `stop`)
            stmt._ag_flags = getattr(stmt, "_ag_flags", []) + [RETURN_FLAG]
        for holder, field in _blocks(stmt):
            setattr(holder, field, self.lower(getattr(holder, field)) or [ast.Pass()])


def lower_returns(fdef):
    """Lowers the returns of a function body when one sits inside a compound statement; returns
    whether it did (then the body starts with the flags and ends with ``return retval_``)."""
    nested = any(not isinstance(s, ast.Return) and contains(s, ast.Return, SCOPES) for s in fdef.body)
    if not nested:
        return False

    def replace(stmt):
        value = stmt.value if stmt.value is not None else ast.Constant(value=None)
        return [assign(RETURN_FLAG, ast.Constant(value=True)), assign(RETURN_VALUE, value)]

    fdef.body = _Jump(ast.Return, SCOPES, replace, [RETURN_FLAG]).lower(fdef.body)
    return True


class LoopLowering:
    """Lowers break and continue loop by loop, innermost first; numbers the flags per function."""

    def __init__(self):
        self.count = 0

    def block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, SCOPES):
                out.append(stmt)
                continue
            for holder, field in _blocks(stmt):
                setattr(holder, field, self.block(getattr(holder, field)))
            out.extend(self.loop(stmt) if isinstance(stmt, LOOPS) else [stmt])
        return out

    def loop(self, node):
        stop = SCOPES + LOOPS
        has = {kind: any(isinstance(s, kind) or contains(s, kind, stop) for s in node.body)
               for kind in (ast.Break, ast.Continue)}
        before, after = [], []
        if has[ast.Continue]:
            self.count += 1
            flag = f"continue_{self.count}"
            jump = _Jump(ast.Continue, stop, lambda s: [assign(flag, ast.Constant(value=True))], [flag])
            node.body = [ast.copy_location(assign(flag, ast.Constant(value=False)), node)] + jump.lower(node.body)
        if has[ast.Break]:
            self.count += 1
            flag = f"break_{self.count}"
            jump = _Jump(ast.Break, stop, lambda s: [assign(flag, ast.Constant(value=True))], [flag])
            node.body = jump.lower(node.body) or [ast.Pass()]
            node._ag_flags = getattr(node, "_ag_flags", []) + [flag]
            before.append(ast.copy_location(assign(flag, ast.Constant(value=False)), node))
            if node.orelse:
                after.append(ast.copy_location(ast.If(test=not_flags([flag]), body=node.orelse, orelse=[]),
                                               node.orelse[0]))
        elif node.orelse:
            after.extend(node.orelse)
        node.orelse = []
        return before + [node] + after
