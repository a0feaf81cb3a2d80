/**
 * What a model reads about each MCP tool: what it is for, when to use it, what it returns, in plain
 * words. Kept here, apart from the method table's summaries (written for people reading the API), so
 * that the tool list names tools (page_snapshot), not methods with dots, and carries no environment
 * variable, no seed number and no error-code table. Keyed by method name; a method of the table
 * without an entry here is a test failure (test/integration/mcp.test.ts).
 */
export const TOOL_TEXTS: Readonly<Record<string, string>> = {
  'session.create':
    'Start here: opens a private browser session (own cookies and storage) and returns the session_id the other tools need.',
  'session.close': 'Ends a session and frees its browser. Call it when you are done; twice is harmless.',
  'session.list': 'Lists the sessions you have open, with the URL and title of each.',
  'session.addInitScript':
    "Adds JavaScript that runs in every page and frame of the session before the page's own scripts, from the next page load on (reload to apply it now). Use it to stub or observe something from the very start.",
  'session.storageState':
    'Exports the cookies and local storage of the session, to log another session in the same way (pass it to session_create or session_setStorageState). A state too large for one answer is cut and must not be reused.',
  'session.setStorageState':
    'Replaces the cookies and local storage of the session with a saved state (from session_storageState). Reload the page for it to see the new state.',
  'cookies.get':
    'Reads the cookies of the session with all their attributes, optionally only those sent to some URLs or of a domain or name.',
  'cookies.set':
    'Sets cookies in the session: each needs a name, a value and a URL or a domain. A cookie with the same name, domain and path is replaced.',
  'cookies.clear': 'Deletes the cookies of the session: all of them, or those of a name, domain or path.',
  'sessionStorage.get':
    "Reads the sessionStorage of the page's site in this tab: every item, or the keys you name, as {key: value}.",
  'sessionStorage.set':
    "Sets items in the sessionStorage of the page's site, {key: value}; the page's scripts see them at once.",
  'sessionStorage.clear':
    "Removes items from the sessionStorage of the page's site: the keys you name, or all.",
  'page.goto':
    'Opens a URL and waits for the page to settle. Returns the final URL, the title and the HTTP status.',
  'page.waitFor':
    'Waits until a text appears or goes, an element reaches a state, the URL matches or the page loads; state idleFor pauses.',
  'page.reload': 'Reloads the page and waits for it to settle.',
  'page.text':
    'Reads the text a person sees, of the page or one element. Long text comes in parts: call again with the cursor.',
  'page.content':
    'Returns the HTML of the page as it is now, after scripts ran. Large pages are cut; prefer page_text to read and page_snapshot to find elements, and use this only when you need the markup itself.',
  'page.evaluate':
    'Runs a JavaScript expression inside the page and returns its JSON result (a function expression is called with arg). Use it to read something no other tool shows. Keep results small: large ones are cut.',
  'page.click':
    'Clicks an element and reports what changed: navigation, console errors, failed requests, dialogs, downloads, new pages.',
  'page.fill': 'Replaces the value of a text field and reports what changed.',
  'page.press': 'Presses a key or combination (Enter, Control+A) on an element and reports what changed.',
  'page.hover': 'Moves the mouse over an element (menus, tooltips) and reports what changed.',
  'page.dblclick': 'Double-clicks an element named by a ref or selector and reports what changed.',
  'page.focus': 'Gives an element the keyboard focus and reports what changed.',
  'page.check': 'Checks a checkbox, radio button or switch and reports what changed.',
  'page.uncheck': 'Unchecks a checkbox or switch and reports what changed.',
  'page.select': 'Chooses options of a select element and reports what changed.',
  'page.type':
    'Types text key by key, for autocomplete and masked fields (page_fill is faster for plain fields).',
  'page.scroll':
    'Scrolls an element into view, or turns the mouse wheel by a distance. Use it to load lazy content or reveal an element.',
  'page.back': 'Goes back one page in the history and waits for it to settle.',
  'page.forward':
    'Goes forward one page in the history and waits for it to settle. Returns the URL and title.',
  'page.act':
    'Runs several actions and checks in order in one call (fill and submit a form), stopping at the first failure; returns each step’s outcome.',
  'page.keyboard':
    'Uses the keyboard on whatever has the focus: press a key or combination, hold or release one, insert or type text. Use it when no element needs to be named.',
  'page.mouse':
    'Uses the mouse at a point of the page (in CSS pixels): move, click, double-click, press, release or scroll. Use it for canvases and custom widgets that refs cannot name.',
  'page.drag':
    'Drags an element onto another element or to a point, with real pointer events, and reports what changed.',
  'page.setViewport': 'Resizes the visible area of the page, in CSS pixels, to test another screen size.',
  'page.upload':
    'Puts files (given as base64 or text) into a file input or the file chooser a button opens, and reports what changed.',
  'page.drop':
    'Drops files or data (text, a link) onto a drop zone that is not a file input, as dragged in from outside the page, and reports what changed.',
  'page.snapshot':
    'The page as one line per element (role, name, state, value) with refs (e12) for the actions. Long answers come in parts: call again with the cursor.',
  'pages.list': 'Lists the pages of the session (popups, new tabs) and which one is active.',
  'pages.select': 'Makes another page of the session the active one; later tools act on it.',
  'pages.open':
    'Opens a new page (tab) in the session, makes it the active one and, given a url, navigates it there.',
  'pages.close': 'Closes one page of the session (a popup, say) and returns which page is active now.',
  'dialog.setPolicy':
    'Chooses how the session answers alerts, confirms and prompts: automatically, or left pending for dialog_handle.',
  'dialog.handle': 'Accepts or dismisses the dialog waiting for an answer (with prompt text if needed).',
  'logs.pull':
    'Returns the console messages and page errors since the last call. Use it when something went wrong.',
  'network.pull': 'Returns the failed requests since the last call (every response with onlyErrors false).',
  'network.get':
    "Reads one request by its id (r12, from network_pull or an action's failedRequests): URL, method, status, request and response headers (credentials hidden unless reveal: true), timing, sizes and both bodies. Use it to see what a failing API call sent and got back.",
  'network.har':
    'Exports the recent requests of the session as a HAR 1.2 log (headers, timings; bodies with bodies: true), for a HAR viewer or to compare two runs. The HAR comes as a file (an embedded JSON resource), not as text to read: use network_get to read one request.',
  'network.route':
    'Mocks, fails or changes the requests whose URL matches a glob: fulfill answers with your status, headers and body; abort fails them; continue sends them on with changed headers. Covers popups. Hosts outside the allow-list stay blocked. Returns a route_id.',
  'network.unroute': 'Removes a route by route_id, or all of them with all: true; returns the routes left.',
  'network.routes': 'Lists the active routes of the session with how many requests each served.',
  'network.offline': 'Takes the session offline (every request fails) or back online.',
  'network.throttle':
    'Slows the network of the session: preset slow-3g, fast-3g or 4g, custom latency and throughput, or none to lift it.',
  'network.setExtraHeaders':
    'Sends these HTTP headers (an Authorization token, say) with every request of the session; {} clears them.',
  screenshot:
    'Takes a picture of the page, the full page, one element or an area. downscale or maxWidth keep it small.',
  'downloads.list':
    'Lists the files the page downloaded in this session, with their ids, names, sizes and states.',
  'downloads.get':
    'Returns a downloaded file, as an embedded resource with its MIME type, in slices: when nextOffset is present, call again with offset set to it.',
  'page.pdf':
    'Prints the page to a PDF (print stylesheet, page breaks) and returns it as a file (an embedded application/pdf resource) with its number of pages. Use pageRanges to print fewer pages.',
  'trace.start':
    'Starts recording a Playwright trace of this session: every action with DOM snapshots, screenshots and network. Call trace_stop to get it.',
  'trace.stop':
    'Stops the trace and returns its id and size, with the zip as a file (an embedded resource) when it is small; otherwise read it with trace_get. Open it with the Playwright trace viewer.',
  'trace.get':
    "Returns a kept trace zip (from trace_stop, or trace_id in a failed call's error data) as a file (an embedded resource), in slices: when nextOffset is present, call again with offset set to it.",
  'performance.start':
    'Records a performance trace of the page: with reload or url it loads the page and returns the insights (LCP, CLS, long tasks, render-blocking and largest requests); without, call performance_stop after acting.',
  'performance.stop':
    'Stops the performance recording and returns its insights (LCP, CLS, a lab INP, long tasks, render-blocking and largest requests), the whole trace kept for trace_get.',
  'session.export':
    'Returns what was done in this session as a runnable Playwright test in TypeScript: each action with locators by role and name, what was read as assertions. Save it as a .spec.ts file.',
  'replay.picture':
    'Returns the picture of the page taken after one action of a session with replay on, also after the session closed, as a file (an embedded JPEG resource).',
  'replay.trace':
    'Returns a session’s timeline as a Playwright trace zip (every call, the replay pictures, console and network), also after the session closed, as a file; open it with npx playwright show-trace.',
  'replay.video':
    'Returns a session’s replay pictures as a WebM video (each picture until the next call’s), also after the session closed, as a file; needs ffmpeg on the service.',
  'find.byRole':
    'Finds elements by role and accessible name and returns their refs, without reading a whole snapshot.',
  'find.byText':
    'Finds the elements that hold a text (or match a regex) and returns their refs. No match is a count of 0.',
  'axe.run':
    'Checks the page (or a part of it) for accessibility problems and returns each violation with the elements concerned. Large reports are cut; check a part of the page with include to see more.',
  'agents.list':
    'Lists the evaluation agents connected to this service, with the tools each offers and how busy it is.',
  'agents.evaluate':
    'Sends a task to a connected evaluation agent that offers the named tool, waits for it, and returns its output. Use agents_list first to see which tools exist.',
  'agents.evaluations':
    'Lists the evaluations you started with agents_evaluate: those still running (which agent, for how long) and the most recent finished ones (ok or error with its code, duration). Use it to check on a long evaluation or to see why one failed.',
  'agents.configureLLM':
    'Sends model settings (provider, key, model names) to one connected evaluation agent and returns its answer. The key is passed on and never written to a log.',
  'tabs.list':
    'Lists the tabs of the separate browser this service is attached to that you may use (those you opened or attached, and those nobody has), with their ids and URLs.',
  'tabs.open':
    'Opens a tab on an allowed URL in the attached browser and returns its id. The tab is yours until it closes: other API keys do not see it.',
  'tabs.close': 'Closes a tab of the attached browser.',
  'tabs.attach':
    'Turns a tab of the attached browser into a session: returns a session_id that every page, find and screenshot tool works on. The tab is yours until it closes: other API keys do not see it.',
  'session.subscribe':
    'Not available over MCP: pushing live events needs a WebSocket connection. Read events with logs_pull or network_pull and a since cursor instead.',
  'session.unsubscribe':
    'Not available over MCP: it stops a live event subscription, which only a WebSocket connection can hold.',
};

/** The MCP description of a method: its text above, or its summary when it has none. */
export function toolText(method: string, summary: string): string {
  return TOOL_TEXTS[method] ?? summary;
}
