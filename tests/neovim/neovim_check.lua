-- A headless Neovim as a plain LSP client of the server: no plugin, only the built-in
-- client (Neovim 0.7 and later). Run by tests/neovim/test_neovim.py with WA_NVIM_CONFIG naming a
-- JSON file: {cmd, root, file, base_url, output}. Writes what it saw to `output` as JSON
-- and exits 0, or 1 with `error` set.
--
-- 1. Starts the server for the workspace and attaches it to the file's buffer.
-- 2. Puts a diagnostic on line 3 (as a linter would), then asks for code actions
--    directly over a range that covers it (textDocument/codeAction).
-- 3. With the cursor on that line, runs vim.lsp.buf.code_action() as a user does, picks
--    the quick fix in the menu, and waits for the run its command starts to end.

local config = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv('WA_NVIM_CONFIG')), '\n'))
local out = { events = {} }

local function finish(failure)
  out.error = failure
  vim.fn.writefile({ vim.fn.json_encode(out) }, config.output)
  vim.cmd(failure and 'cquit! 1' or 'qall!')
end

local function check()
  vim.cmd('edit ' .. vim.fn.fnameescape(config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  local ready = false
  local client_id = vim.lsp.start_client({
    name = 'workspace-agent',
    cmd = config.cmd,
    root_dir = config.root,
    init_options = { workspaceAgent = { baseUrl = config.base_url } },
    on_init = function()
      ready = true
    end,
    handlers = {
      ['workspaceAgent/event'] = function(_, event)
        table.insert(out.events, event.kind)
      end,
      ['workspaceAgent/todos'] = function() end,
    },
  })
  assert(client_id, 'the server did not start')
  vim.lsp.buf_attach_client(bufnr, client_id)
  assert(vim.wait(30000, function()
    return ready
  end, 50), 'the server did not answer initialize')
  local client = vim.lsp.get_client_by_id(client_id)
  out.code_action_provider = client.server_capabilities
      and client.server_capabilities.codeActionProvider
    or client.resolved_capabilities.code_action

  local ns = vim.api.nvim_create_namespace('workspace-agent-check')
  vim.diagnostic.set(ns, bufnr, {
    {
      lnum = 2,
      col = 11,
      end_lnum = 2,
      end_col = 16,
      severity = vim.diagnostic.severity.ERROR,
      message = 'undefined name \'value\'',
      source = 'pyflakes',
      code = 'F821',
    },
  })

  -- 2. A direct request over lines 3-4, with the line's diagnostics as LSP has them.
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  local params = vim.lsp.util.make_given_range_params({ 3, 0 }, { 4, 0 }, bufnr)
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, 2) }
  local answer = client.request_sync('textDocument/codeAction', params, 10000, bufnr)
  assert(answer and not answer.err, 'codeAction failed: ' .. vim.inspect(answer))
  out.direct = answer.result

  -- 3. As a user: the cursor on the line, the code action menu, the quick fix picked.
  vim.api.nvim_win_set_cursor(0, { 3, 12 })
  vim.ui.select = function(items, _, on_choice)
    out.menu = {}
    local chosen
    for index, item in ipairs(items) do
      local action = item[2] or item.action -- {client_id, action} in 0.7, {ctx, action} later
      table.insert(out.menu, action.title)
      if action.kind == 'quickfix' and not chosen then
        chosen = index
      end
    end
    on_choice(items[chosen], chosen)
  end
  vim.lsp.buf.code_action()
  assert(vim.wait(60000, function()
    return vim.tbl_contains(out.events, 'runEnd')
  end, 50), 'the run of the picked action did not end')
  vim.lsp.stop_client(client_id)
end

local ok, failure = pcall(check)
finish(not ok and tostring(failure) or nil)
