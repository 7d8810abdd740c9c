/* Rijplan maps (Leaflet): the drivers' last positions and a driver's track of a day.
 *
 * The page puts its data in data attributes (the CSP allows no inline script):
 *   <div data-map="positions" data-source="positions">  markers from #positions[data-markers],
 *        redrawn whenever htmx refreshes that region;
 *   <div data-map="track" data-line="[[lat, lng], ...]">  a polyline with its start and end.
 * data-tile-url is the configured tile server (empty: no background tiles, markers on a
 * plain background). Text goes into the map as DOM text, never as HTML.
 */
(function () {
  "use strict";

  var NETHERLANDS = [[50.75, 3.36], [53.56, 7.23]];
  var GREEN = "#2f6f3e";
  var GREY = "#7b8290";

  function onReady(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  function parse(text) {
    try {
      return JSON.parse(text || "[]");
    } catch (e) {
      return [];
    }
  }

  function textNode(tag, text, className) {
    var el = document.createElement(tag);
    el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function baseMap(el) {
    el.classList.add("map-ready"); // shown before Leaflet measures it
    var map = L.map(el, { scrollWheelZoom: false, zoomSnap: 0.5, zoomControl: false });
    L.control.zoom({
      zoomInTitle: el.dataset.labelZoomIn || "Zoom in",
      zoomOutTitle: el.dataset.labelZoomOut || "Zoom out"
    }).addTo(map);
    var url = el.dataset.tileUrl;
    if (url) {
      L.tileLayer(url, { maxZoom: 19, attribution: el.dataset.attribution || "" }).addTo(map);
    } else {
      el.classList.add("map-blank");
    }
    L.control.scale({ imperial: false }).addTo(map);
    map.fitBounds(NETHERLANDS);
    // Wheel zoom only once the map is focused or clicked, so the page still scrolls.
    map.on("focus click", function () { map.scrollWheelZoom.enable(); });
    map.on("blur", function () { map.scrollWheelZoom.disable(); });
    return map;
  }

  function popup(m, label) {
    var box = document.createElement("div");
    box.className = "map-popup";
    box.appendChild(textNode("strong", m.naam));
    box.appendChild(textNode("div", m.tijd + " (" + m.leeftijd + ")"));
    if (m.nauwkeurigheid !== null && m.nauwkeurigheid !== undefined) {
      box.appendChild(textNode("div", "± " + Math.round(m.nauwkeurigheid) + " m"));
    }
    var link = textNode("a", label || "Route");
    link.href = m.url;
    box.appendChild(link);
    return box;
  }

  function positionsMap(el) {
    var map = baseMap(el);
    var layer = L.featureGroup().addTo(map);
    var fitted = false;

    function draw() {
      var source = document.getElementById(el.dataset.source);
      if (!source) return;
      var markers = parse(source.dataset.markers);
      layer.clearLayers();
      markers.forEach(function (m) {
        if (typeof m.lat !== "number" || typeof m.lng !== "number") return;
        var colour = m.oud ? GREY : GREEN;
        if (m.nauwkeurigheid && m.nauwkeurigheid < 5000) {
          L.circle([m.lat, m.lng], {
            radius: m.nauwkeurigheid, weight: 1, color: colour, fillOpacity: 0.08, interactive: false
          }).addTo(layer);
        }
        L.circleMarker([m.lat, m.lng], {
          radius: 8, weight: 2, color: "#fff", fillColor: colour, fillOpacity: 1
        })
          .bindTooltip(textNode("span", m.naam), {
            permanent: true, direction: "right", offset: [8, 0], className: "map-label" + (m.oud ? " map-label-old" : "")
          })
          .bindPopup(popup(m, el.dataset.labelTrack))
          .addTo(layer);
      });
      if (!fitted && layer.getLayers().length) {
        // Room on the right for the name labels.
        map.fitBounds(layer.getBounds(), {
          paddingTopLeft: [30, 30], paddingBottomRight: [140, 30], maxZoom: 13
        });
        fitted = true;
      }
    }

    draw();
    document.body.addEventListener("htmx:afterSettle", draw);
  }

  function trackMap(el) {
    var map = baseMap(el);
    var line = parse(el.dataset.line);
    if (!line.length) return;
    var track = L.polyline(line, { color: GREEN, weight: 4, opacity: 0.85 }).addTo(map);
    var ends = [
      [line[0], "#1d3f7a", el.dataset.labelStart],
      [line[line.length - 1], "#b42318", el.dataset.labelEnd]
    ];
    ends.forEach(function (end) {
      L.circleMarker(end[0], { radius: 7, weight: 2, color: "#fff", fillColor: end[1], fillOpacity: 1 })
        .bindTooltip(textNode("span", end[2] || ""), { direction: "top", offset: [0, -6], className: "map-label" })
        .addTo(map);
    });
    map.fitBounds(track.getBounds(), { padding: [30, 30], maxZoom: 15 });
  }

  onReady(function () {
    if (typeof L === "undefined") return; // Leaflet missing: the tables still tell it all
    document.querySelectorAll("[data-map]").forEach(function (el) {
      if (el.dataset.map === "positions") positionsMap(el);
      else if (el.dataset.map === "track") trackMap(el);
    });
  });
})();
