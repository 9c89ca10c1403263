"""The source transformation: a function's AST in, the AST of its converted form out.

Passes, in order (see _lower.py for the first two):
  1. break/continue become flags, loop by loop; 2. return becomes ``do_return``/``retval_``;
  3. expressions: calls go through ``ag__.converted_call``, ``and``/``or``/``not`` and ``a if c else
     b`` through operators that build graph ops for a traced tensor, reads of the function's own
     variables through ``ag__.ld`` (which names a variable left undefined by a branch or a loop);
  4. statements: each ``if``/``while``/``for`` becomes nested functions for its blocks plus
     ``get_state``/``set_state`` over the variables it assigns (shared with the function through
     ``nonlocal``) and one call of ``ag__.if_stmt``/``while_stmt``/``for_stmt``, which decide at run
     time between Python control flow and tf.cond/tf.while_loop.
Every variable the function assigns starts as ``ag__.Undefined(name)`` so that ``nonlocal`` finds it.
"""
import ast

from tapegrad.autograph._expressions import AG, Expressions, call
from tapegrad.autograph._lower import LOOPS, RETURN_FLAG, RETURN_VALUE, SCOPES, LoopLowering, lower_returns

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parse(text):
    """Statements of generated code, without locations (they get the converted statement's)."""
    body = ast.parse(text).body
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(node, attr):
                delattr(node, attr)
    return body


def place(tree, node):
    """Gives the generated nodes of tree (those without a location) the first line of node."""
    for child in ast.walk(tree):
        if getattr(child, "lineno", None) is None and isinstance(child, (ast.stmt, ast.expr, ast.arg)):
            child.lineno = child.end_lineno = node.lineno
            child.col_offset = child.end_col_offset = node.col_offset


def assigned_names(nodes):
    """Names a list of statements binds in the function's scope, in first-seen order (exception
    handler names excepted: Python deletes them after the handler)."""
    found = {}

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not getattr(node, "_ag_generated", False):
                found[node.name] = None
                return
            for stmt in node.body:  # a converted block: its assignments are the enclosing block's
                visit(stmt)
            return
        if isinstance(node, (ast.Lambda,) + _COMPREHENSIONS):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found[node.id] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    found[(alias.asname or alias.name).split(".")[0]] = None
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found[node.name] = None
        for child in ast.iter_child_nodes(node):
            visit(child)

    for n in nodes:
        visit(n)
    return list(found)


class _Statements(ast.NodeTransformer):
    """Pass 4: if/while/for into calls of the control-flow operators."""

    def __init__(self, declared_global, filename, body):
        self.declared_global, self.filename = declared_global, filename
        self.count = 0
        self.reads = _reads(body)  # (name, line) of every read in the function
        self.loops = [(n.lineno, n.end_lineno) for s in body for n in ast.walk(s) if isinstance(n, LOOPS)]

    def _skip(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _skip

    def _declare(self, names):
        local = [n for n in names if n not in self.declared_global]
        glob = [n for n in names if n in self.declared_global]
        return ([ast.Nonlocal(names=local)] if local else []) + ([ast.Global(names=glob)] if glob else [])

    def _fn(self, fname, params, body, names):
        fdef = _parse(f"def {fname}({params}):\n    pass")[0]
        fdef.body = self._declare(names) + (body or [ast.Pass()])
        fdef._ag_generated = True
        return fdef

    def _state(self, names, n):
        tup = "(" + "".join(f"{x}, " for x in names) + ")"
        get = _parse(f"def get_state_{n}():\n    return {tup}")[0]
        get._ag_generated = True
        setter = self._fn(f"set_state_{n}", "vars_", _parse(f"{tup} = vars_") if names else [], names)
        return [get, setter]

    def _where(self, node):
        return repr((self.filename, node.lineno))

    def visit_If(self, node):
        self.generic_visit(node)
        self.count += 1
        n = self.count
        body_names, orelse_names = assigned_names(node.body), assigned_names(node.orelse)
        names = list(dict.fromkeys(body_names + orelse_names))
        defs = [self._fn(f"if_body_{n}", "", node.body, names), self._fn(f"else_body_{n}", "", node.orelse, names)]
        call = _parse(f"{AG}.if_stmt(None, if_body_{n}, else_body_{n}, get_state_{n}, set_state_{n}, "
                      f"{tuple(names)!r}, {tuple(body_names)!r}, {tuple(orelse_names)!r}, {self._where(node)})")[0]
        call.value.args[0] = node.test
        return self._located(defs + self._state(names, n) + [call], node)

    def _options(self, node, live_names, **names):
        """The loop's options: set_loop_options' arguments, and names the operators need to know."""
        opts = node._ag_options
        consts = dict(names, live_names=live_names)
        return ast.Dict(keys=[ast.Constant(value=k) for k, _ in opts] + [ast.Constant(value=k) for k in consts],
                        values=[v for _, v in opts] + [ast.Constant(value=v) for v in consts.values()])

    def _read_after(self, node, names):
        """Names read after the loop, or anywhere in a loop around it (its next iteration may read
        them): a graph loop keeps their last values. The others are local to an iteration."""
        start, end = node.lineno, node.end_lineno
        around = [(a, b) for a, b in self.loops if a <= start and b >= end and (a, b) != (start, end)]
        live = {n for n, line in self.reads if line > end or any(a <= line <= b for a, b in around)}
        return tuple(n for n in names if n in live)

    def visit_While(self, node):
        self.generic_visit(node)
        self.count += 1
        n = self.count
        walrus = [t.target.id for t in ast.walk(node.test) if isinstance(t, ast.NamedExpr)]
        names = list(dict.fromkeys(assigned_names(node.body) + walrus))
        # After a break or return the condition is not evaluated again (it may have side effects).
        go = getattr(node, "_ag_go", None)
        test = _parse(f"def loop_test_{n}():\n    return None" if go is None else
                      f"def loop_test_{n}():\n    go_ = None\n    if {AG}.is_false(go_):\n        return False\n"
                      f"    return {AG}.and_values(go_, None)")[0]
        test.body = self._declare(walrus) + test.body
        if go is None:
            test.body[-1].value = node.test
        else:
            test.body[-3].value = go
            test.body[-1].value.args[1] = node.test
        test._ag_generated = True
        defs = [test, self._fn(f"loop_body_{n}", "", node.body, names)]
        call = _parse(f"{AG}.while_stmt(loop_test_{n}, loop_body_{n}, get_state_{n}, set_state_{n}, "
                      f"{tuple(names)!r}, None, {self._where(node)})")[0]
        call.value.args[5] = self._options(node, self._read_after(node, names))
        return self._located(defs + self._state(names, n) + [call], node)

    def visit_For(self, node):
        self.generic_visit(node)
        self.count += 1
        n = self.count
        bind = ast.Assign(targets=[node.target], value=ast.Name(id=f"itr_{n}", ctx=ast.Load()))
        names = assigned_names([bind] + node.body)
        defs = [self._fn(f"loop_body_{n}", f"itr_{n}", [bind] + node.body, names)]
        extra = "None"
        if getattr(node, "_ag_extra_test", None) is not None:
            test = _parse(f"def extra_test_{n}():\n    return None")[0]
            test.body[0].value = node._ag_extra_test
            test._ag_generated = True
            defs.append(test)
            extra = f"extra_test_{n}"
        call = _parse(f"{AG}.for_stmt(None, {extra}, loop_body_{n}, get_state_{n}, set_state_{n}, "
                      f"{tuple(names)!r}, None, {self._where(node)})")[0]
        call.value.args[0] = node.iter
        targets = tuple(t.id for t in ast.walk(node.target) if isinstance(t, ast.Name))
        call.value.args[6] = self._options(node, self._read_after(node, names),
                                           iterate_names=targets)  # set anew by every iteration
        return self._located(defs + self._state(names, n) + [call], node)

    @staticmethod
    def _located(stmts, node):
        for s in stmts:
            place(s, node)
        return stmts


def _reads(nodes):
    """(name, line) of each read in nodes."""
    return [(child.id, child.lineno) for node in nodes for child in ast.walk(node)
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load)]


def _loop_options(tree):
    """Moves `...set_loop_options(k=v)` calls at the top of a loop body into the loop's options."""
    for node in ast.walk(tree):
        if isinstance(node, LOOPS):
            keep = []
            for s in node.body:
                call = s.value if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) else None
                fname = call.func.attr if call is not None and isinstance(call.func, ast.Attribute) else \
                    call.func.id if call is not None and isinstance(call.func, ast.Name) else None
                if fname == "set_loop_options":
                    node._ag_options = getattr(node, "_ag_options", []) + list(call.keywords)
                else:
                    keep.append(s)
            node.body = keep or [ast.Pass()]


def convert_function_def(fdef, params, uses_class_cell, filename):
    """Rewrites a FunctionDef in place into its converted form; returns it."""
    fdef.decorator_list = []
    _loop_options(fdef)
    fdef.body = LoopLowering().block(fdef.body)
    returns = lower_returns(fdef)
    declared_global = {n for s in ast.walk(fdef) if isinstance(s, ast.Global) and not isinstance(s, SCOPES)
                       for n in s.names}
    declared_nonlocal = {n for s in fdef.body for n in (s.names if isinstance(s, ast.Nonlocal) else [])}
    tracked = [n for n in assigned_names(fdef.body)
               if n not in params and n not in declared_global and n not in declared_nonlocal]
    if returns:
        tracked = [n for n in tracked if n not in (RETURN_FLAG, RETURN_VALUE)] + [RETURN_FLAG, RETURN_VALUE]
    first = (fdef.args.posonlyargs + fdef.args.args)[:1]
    self_name = first[0].arg if first and uses_class_cell else None  # zero-argument super() needs it explicit
    expressions = Expressions(set(tracked) | declared_nonlocal, self_name, filename)
    fdef.body = expressions.visit(ast.Module(body=fdef.body, type_ignores=[])).body
    ast.fix_missing_locations(fdef)  # the lowering's flag tests get their statement's line
    statements = _Statements(declared_global, filename, fdef.body)
    fdef.body = statements.visit(ast.Module(body=fdef.body, type_ignores=[])).body
    head = [s for s in fdef.body if isinstance(s, (ast.Global, ast.Nonlocal))]
    rest = [s for s in fdef.body if not isinstance(s, (ast.Global, ast.Nonlocal))]
    prologue = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=call("Undefined", ast.Constant(value=n)))
                for n in tracked]
    if returns:
        prologue[-2:] = _parse(f"{RETURN_FLAG} = False\n{RETURN_VALUE} = {AG}.UndefinedReturnValue()")
    if uses_class_cell:
        prologue.append(ast.Expr(value=ast.Name(id="__class__", ctx=ast.Load())))  # keeps super() working
    epilogue = _parse(f"return {AG}.retval({RETURN_VALUE})") if returns else []
    fdef.body = head + prologue + rest + epilogue
    for s in fdef.body[:len(head) + len(prologue)]:
        place(s, fdef)
    if epilogue:
        place(epilogue[0], fdef.body[-2] if len(fdef.body) > 1 else fdef)
    ast.fix_missing_locations(fdef)
    return fdef
