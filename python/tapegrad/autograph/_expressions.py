"""Pass 3 of the conversion (see _convert.py): the expressions of a function body."""
import ast

from tapegrad.autograph._lower import not_flags

AG = "ag__"
_DIRECT_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}  # need the caller's frame


def _ag(attr):
    return ast.Attribute(value=ast.Name(id=AG, ctx=ast.Load()), attr=attr, ctx=ast.Load())


def call(attr, *args):
    """``ag__.attr(*args)``."""
    return ast.Call(func=_ag(attr), args=list(args), keywords=[])


def _lambda(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=body)


class Expressions(ast.NodeTransformer):
    """Pass 3: calls, boolean operators, conditional expressions and reads of tracked names."""

    def __init__(self, tracked, self_name, filename):
        self.tracked, self.self_name, self.filename = tracked, self_name, filename

    def _skip(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _skip

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.tracked:
            return ast.copy_location(call("ld", node), node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        if isinstance(target, ast.Name) and target.id in self.tracked:  # `x += 1` on an undefined x names x
            load = ast.Name(id=target.id, ctx=ast.Load())
            read = ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())], value=call("ld", load))
            return [ast.copy_location(read, node), node]
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super" and not node.args and self.self_name:
            node.args = [ast.Name(id="__class__", ctx=ast.Load()), ast.Name(id=self.self_name, ctx=ast.Load())]
        if isinstance(func, ast.Name) and func.id in _DIRECT_CALLS:
            return node
        return ast.copy_location(self._converted_call("converted_call", node), node)

    @staticmethod
    def _converted_call(op, node):
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        keys = [ast.Constant(value=k.arg) if k.arg is not None else None for k in node.keywords]
        kwargs = ast.Dict(keys=keys, values=[k.value for k in node.keywords]) if node.keywords \
            else ast.Constant(value=None)
        return call(op, node.func, args, kwargs)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = call(op, _lambda(value), _lambda(result))
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(call("not_", node.operand), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(call("if_exp", node.test, _lambda(node.body), _lambda(node.orelse),
                                       ast.Constant(value=(self.filename, node.lineno))), node)

    def visit_For(self, node):
        node.target = self.visit(node.target)
        iterable = self.visit(node.iter)
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
                and iterable.func.attr == "converted_call":
            iterable.func.attr = "iterable_call"  # sees tf.range(traced bounds) before it is materialized
        node.iter = iterable
        node.body = self._block(node.body)
        if getattr(node, "_ag_flags", None):
            node._ag_extra_test = self.visit(not_flags(node._ag_flags))
        node._ag_options = [(k.arg, self.visit(k.value)) for k in getattr(node, "_ag_options", [])]
        return node

    def visit_While(self, node):
        if getattr(node, "_ag_flags", None):  # checked before the condition (see _Statements.visit_While)
            node._ag_go = self.visit(not_flags(node._ag_flags))
        node.test = self.visit(node.test)
        node.body = self._block(node.body)
        node._ag_options = [(k.arg, self.visit(k.value)) for k in getattr(node, "_ag_options", [])]
        return node

    def _block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out
