"""``zengine gui``: play, watch and analyse in a browser (docs/gui.md).

The server (:mod:`.server`) holds one game (:mod:`.table`) that every tab shows; its players
are people clicking on the page or engines driven through the protocol only
(:mod:`.engines`, on the referee's engine client). The page (``page/``) draws what the server
sends and asks the server for everything the rules know.
"""
