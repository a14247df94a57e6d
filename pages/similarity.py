"""/similarity: the human-similarity page's URL path before it was renamed /sts (`ui.nav.OLD_PATHS`), kept so an
old link still opens it. On a fresh server the first request runs the file of pages/ named by its URL path; this
one hands that run to app.py (`through_app`), whose navigation opens pages/sts.py. Nothing else imports it."""

from ui.shell import through_app

through_app()
