/// The page's fixed parts: its style sheet and its script, inline so the file needs nothing else.
extension HTMLReport {
    /// Colours come from custom properties, swapped under `prefers-color-scheme: dark`.
    static let styleSheet = """
        :root{color-scheme:light dark;--bg:#f6f6f8;--card:#fff;--fg:#1d1d24;--muted:#6b6b78;--line:#d9d9e0;
        --accent:#2f6fd6;--crit:#111;--edge:#9a9aa8}
        @media (prefers-color-scheme: dark){:root{--bg:#15151a;--card:#1f1f26;--fg:#e8e8ee;--muted:#9a9aa8;
        --line:#3a3a46;--accent:#6ea2ff;--crit:#fff;--edge:#6b6b78}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
        main{max-width:1400px;margin:0 auto;padding:20px 24px 48px}
        h1{font-size:24px;margin:0 0 4px}
        h2{font-size:17px;margin:0 0 10px}
        code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}
        .meta{color:var(--muted);margin:0 0 12px}
        .card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px;margin:14px 0;
        overflow-x:auto}
        .chips{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
        .chip{display:inline-flex;align-items:center;gap:6px;padding:3px 10px;border-radius:999px;border:1px solid var(--line)}
        .dot{display:inline-block;width:10px;height:10px;border-radius:3px}
        .exit{font-weight:600;padding:3px 10px;border-radius:6px;color:#fff}
        .util{display:grid;grid-template-columns:max-content 240px max-content;gap:4px 10px;align-items:center}
        .bar{height:10px;border-radius:5px;background:var(--line);overflow:hidden}
        .bar>span{display:block;height:100%;background:var(--accent)}
        .hint{color:var(--muted);font-size:12.5px}
        #filter{position:sticky;top:0;z-index:2;display:none;background:var(--accent);color:#fff;padding:6px 12px;
        border-radius:0 0 8px 8px;width:max-content;margin:0 auto}
        #filter button{margin-left:10px;font:inherit;cursor:pointer}
        body.filtered #filter{display:block}
        svg text{fill:var(--fg);font:12px system-ui,sans-serif}
        svg .sub{fill:var(--muted);font-size:11px}
        .task{cursor:pointer}
        .task>rect.box{fill:var(--card);stroke:var(--line);stroke-width:1.5}
        .task:hover>rect.box,.task.on>rect.box{stroke:var(--accent);stroke-width:2.5}
        .edge{fill:none;stroke:var(--edge);stroke-width:1.4}
        #arrow path{fill:var(--edge)}
        .off{opacity:.13}
        .failure.off,.shot.off{display:none}
        .grid .row{display:flex;align-items:center;height:12px;margin:1px 0}
        .grid .row>b{width:130px;flex:none;font-weight:500;font-size:11.5px;overflow:hidden;text-overflow:ellipsis;
        white-space:nowrap}
        .grid .row>i{width:10px;height:10px;margin-right:1px;flex:none;border-radius:2px}
        .grid .band{margin:0 0 10px}
        .grid .row.wrap{flex-wrap:wrap;height:auto;margin-left:130px}
        .grid .row.wrap>i{margin-bottom:1px}
        .grid .band>.axis{margin-left:130px;color:var(--muted);font-size:11px}
        .lane{fill:none;stroke:var(--line);stroke-width:.5}
        .busy{fill:var(--s-succeeded);fill-opacity:.5}
        rect.retried{fill-opacity:.45;stroke:var(--s-failed);stroke-width:1;stroke-dasharray:2 2}
        rect.crit{stroke:var(--crit);stroke-width:1.6}
        .tick{stroke:var(--line)}
        .failure{border-left:4px solid var(--s-failed);padding:6px 12px;margin:10px 0}
        .failure h3{margin:0;font-size:15px}
        .failure .cause{margin:2px 0;font-weight:500}
        .sheet{display:flex;flex-wrap:wrap;gap:10px}
        .shot{margin:0;width:136px;text-align:center;font-size:11.5px}
        .shot img{display:block;margin:0 auto;max-width:128px;max-height:128px;border-radius:4px}
        .shot figcaption{color:var(--muted);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .gap{height:96px;padding:4px;display:flex;flex-direction:column;align-items:center;justify-content:center;
        border:2px dashed var(--line);border-radius:6px;color:var(--muted);font-size:11px;overflow-wrap:anywhere;
        overflow:hidden}
        .gap>b{color:var(--fg);font-size:12px}
        """

    /// Clicking a task in the graph filters the page to it; clicking it again, or "show all", clears the filter;
    /// `#task=ID` in the address opens the page filtered.
    /// `data-ready` on the body says the script ran; `data-images` whether every thumbnail decoded.
    static let script = """
        (function () {
          var body = document.body, current = null;
          function apply(task) {
            current = task;
            body.classList.toggle('filtered', task !== null);
            document.getElementById('filter-task').textContent = task || '';
            var marked = document.querySelectorAll('[data-task]');
            for (var i = 0; i < marked.length; i++) {
              var mine = marked[i].getAttribute('data-task') === task;
              marked[i].classList.toggle('off', task !== null && !mine);
              marked[i].classList.toggle('on', task !== null && mine);
            }
          }
          // The address follows the filter, so a filtered view can be shared as run.html#task=ID.
          function choose(task) {
            apply(task);
            var address = task === null ? window.location.pathname : '#task=' + encodeURIComponent(task);
            history.replaceState(null, '', address);
          }
          var tasks = document.querySelectorAll('svg .task');
          for (var i = 0; i < tasks.length; i++) {
            tasks[i].addEventListener('click', function () {
              var task = this.getAttribute('data-task');
              choose(current === task ? null : task);
            });
          }
          document.getElementById('filter-clear').addEventListener('click', function () { choose(null); });
          var linked = /^#task=(.+)$/.exec(window.location.hash);
          if (linked) apply(decodeURIComponent(linked[1]));
          function checkImages() {
            var images = document.images, decoded = 0;
            for (var i = 0; i < images.length; i++) {
              if (images[i].complete && images[i].naturalWidth > 0) decoded++;
            }
            body.setAttribute('data-images', decoded + '/' + images.length);
          }
          if (document.readyState === 'complete') checkImages(); else window.addEventListener('load', checkImages);
          body.setAttribute('data-ready', '1');
        })();
        """
}
