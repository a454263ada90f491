/*
 * The location picker (地图选点), offline: a reference client of gazetteer's AMap endpoints.
 *
 * The map is Leaflet with no tiles: its base map is the regions GeoJSON of this server
 * (picker/regions.geojson). A pin stays at the centre; when the map stops moving the centre
 * is reverse geocoded (v3/geocode/regeo) and the 20 nearest POIs listed (v3/place/around).
 * The search box suggests as you type (v3/assistant/inputtips) and searches on 搜索
 * (v3/place/text); 定位 converts the browser's WGS-84 position (v3/assistant/coordinate/convert).
 * 提交 hands the regeo answer plus the chosen POI to the embedding app.
 *
 * Every URL is relative, so the page works under any path prefix and port. All coordinates
 * are GCJ-02 "lng,lat" strings, as AMap's.
 */
(function () {
  'use strict';

  var BEIJING = [116.397535, 39.909115];
  var START_ZOOM = 15;
  var LIST_SIZE = 20;
  // AMap's top-level categories of things a person picks (not 18 road furniture, 19 place names).
  var AROUND_TYPES = '010000|020000|030000|040000|050000|060000|070000|080000|090000|100000|110000|120000|130000|140000|150000|160000|170000|200000';
  var params = new URLSearchParams(window.location.search);
  var $ = function (id) { return document.getElementById(id); };

  var state = {
    mode: 'around',       // 'around': the centre and POIs near it; 'search': place/text hits
    origin: null,         // [lng, lat] the list was made for (around) or the first hit (search)
    items: [],            // POIs (AMap objects) in the list
    selected: -1,         // index into items; -1 is the centre itself
    keyword: '',
    regeo: null,          // the regeo answer for regeoFor
    regeoFor: null,       // "lng,lat"
    keepList: false,      // the next moveend comes from choosing an item: keep the list
    notice: '',           // said above the list until the map moves again
    nextNotice: '',       // the notice for the next move (an address opened)
    pendingPlace: null    // a suggestion chosen: put it first in the next around list
  };

  // ---------- small helpers

  function parseLngLat(text) {
    if (typeof text !== 'string') return null;
    var parts = text.split(',');
    if (parts.length !== 2) return null;
    var lng = Number(parts[0]), lat = Number(parts[1]);
    if (!isFinite(lng) || !isFinite(lat) || parts[0].trim() === '' || parts[1].trim() === '') return null;
    if (lng < -180 || lng > 180 || lat < -90 || lat > 90) return null;
    return [lng, lat];
  }
  function fmt(p) { return p[0].toFixed(6) + ',' + p[1].toFixed(6); }
  function latLng(p) { return L.latLng(p[1], p[0]); }

  /** Great-circle distance in metres (haversine, as the service's). */
  function haversine(a, b) {
    var r = Math.PI / 180, R = 6371008.8;
    var dPhi = (b[1] - a[1]) * r, dLambda = (b[0] - a[0]) * r;
    var h = Math.pow(Math.sin(dPhi / 2), 2) + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.pow(Math.sin(dLambda / 2), 2);
    return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
  }
  function distanceText(m) {
    if (!isFinite(m)) return '';
    if (m < 1000) return Math.round(m) + '米';
    return (m < 10000 ? (m / 1000).toFixed(1) : Math.round(m / 1000)) + '公里';
  }
  function text(value) { return typeof value === 'string' ? value : ''; }
  function node(tag, className, content) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (content != null) e.textContent = content;
    return e;
  }

  var toastTimer = null;
  function toast(message) {
    var t = $('toast');
    t.textContent = message;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 3500);
  }

  /** GET a relative URL; AMap failures (status "0") and transport errors become Errors. The
   *  page's own ?key= goes to the AMap endpoints (a server run with --keys-file wants one). */
  function api(path, query, signal) {
    if (params.get('key') && path.indexOf('v3/') === 0) query = Object.assign({ key: params.get('key') }, query);
    var url = path + '?' + new URLSearchParams(query).toString();
    return fetch(url, { signal: signal, headers: { Accept: 'application/json' } }).then(function (res) {
      return res.json().catch(function () {
        throw new Error('服务返回了无法读取的内容（HTTP ' + res.status + '）');
      }).then(function (body) {
        if (body && body.status === '0') {
          throw new Error((body.detail || body.info || '请求失败') + '（' + (body.infocode || res.status) + '）');
        }
        if (!res.ok) throw new Error('请求失败（HTTP ' + res.status + '）');
        return body;
      });
    }, function (e) {
      if (e && e.name === 'AbortError') throw e;
      throw new Error('无法连接地图服务');
    });
  }
  function isAbort(e) { return e && e.name === 'AbortError'; }

  /** One request at a time per purpose: a new one cancels the one before. */
  function Channel() { this.controller = null; }
  Channel.prototype.next = function () {
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    return this.controller.signal;
  };

  // ---------- the map

  var map = L.map('map', {
    minZoom: 3, maxZoom: 18, zoomSnap: 1, worldCopyJump: false,
    maxBounds: [[-80, -180], [80, 180]], maxBoundsViscosity: 1, zoomControl: true
  });
  map.attributionControl.setPrefix('<a href="picker/leaflet-LICENSE.txt" target="_blank">Leaflet</a>');
  map.attributionControl.addAttribution('行政区划 gazetteer（离线）');
  L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(map);
  map.createPane('labels');
  map.getPane('labels').style.zIndex = 450;
  map.getPane('labels').style.pointerEvents = 'none';

  var PALETTE = ['#f3e7cf', '#e2eed3', '#f5ddd3', '#dfe6f3', '#ecdfee', '#f2edc4', '#d8ece5', '#f0e0c8'];
  function fill(props) {
    var code = parseInt(props.adcode, 10) || 0;
    var n = props.level === 'province' ? Math.floor(code / 10000) : props.level === 'city' ? Math.floor(code / 100) : code;
    return PALETTE[n % PALETTE.length];
  }
  var regionLayer = null;
  var labelLayer = L.layerGroup().addTo(map);
  var regionChannel = new Channel();

  function loadRegions() {
    var zoom = map.getZoom();
    var b = map.getBounds().pad(0.3);
    var clampLng = function (v) { return Math.max(-180, Math.min(180, v)); };
    var clampLat = function (v) { return Math.max(-85, Math.min(85, v)); };
    var bbox = [clampLng(b.getWest()), clampLat(b.getSouth()), clampLng(b.getEast()), clampLat(b.getNorth())]
      .map(function (v) { return v.toFixed(5); }).join(',');
    var signal = regionChannel.next();
    api('picker/regions.geojson', { bbox: bbox, zoom: String(zoom) }, signal).then(function (geojson) {
      var layer = L.geoJSON(geojson, {
        interactive: false,
        style: function (f) {
          var level = f.properties.level;
          return {
            color: level === 'province' ? '#8d7f6a' : '#9aa5b4', weight: level === 'district' ? 1 : 1.4,
            opacity: 0.95, fillColor: fill(f.properties), fillOpacity: 0.9
          };
        }
      }).addTo(map);
      if (regionLayer) map.removeLayer(regionLayer);
      regionLayer = layer;
      drawLabels(geojson.features || []);
    }).catch(function (e) {
      if (!isAbort(e)) toast('底图加载失败：' + e.message);
    });
  }

  /** Whether a point is inside a GeoJSON (Multi)Polygon: even-odd over each polygon's rings. */
  function inside(lng, lat, geometry) {
    var polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [];
    return polygons.some(function (rings) {
      var odd = false;
      rings.forEach(function (ring) {
        for (var i = 0, j = ring.length - 1; i < ring.length; j = i++) {
          var a = ring[i], b = ring[j];
          if ((a[1] > lat) !== (b[1] > lat) && lng < (b[0] - a[0]) * (lat - a[1]) / (b[1] - a[1]) + a[0]) odd = !odd;
        }
      });
      return odd;
    });
  }

  /** For a region whose label point is off screen: the middle of its part on screen, from a grid. */
  function visiblePoint(geometry, view) {
    var n = 9, hits = [];
    var w = view.getWest(), s = view.getSouth(), dx = (view.getEast() - w) / (n + 1), dy = (view.getNorth() - s) / (n + 1);
    for (var i = 1; i <= n; i++) {
      for (var j = 1; j <= n; j++) {
        if (inside(w + i * dx, s + j * dy, geometry)) hits.push([w + i * dx, s + j * dy]);
      }
    }
    if (hits.length < 3) return null;
    var mx = 0, my = 0;
    hits.forEach(function (h) { mx += h[0]; my += h[1]; });
    mx /= hits.length; my /= hits.length;
    var best = hits.reduce(function (b, h) {
      return Math.pow(h[0] - mx, 2) + Math.pow(h[1] - my, 2) < Math.pow(b[0] - mx, 2) + Math.pow(b[1] - my, 2) ? h : b;
    });
    return L.latLng(best[1], best[0]);
  }

  function overlaps(a, b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

  /** Region names at their label points, skipping any that would overlap one already placed. */
  function drawLabels(features) {
    labelLayer.clearLayers();
    var view = map.getBounds();
    var mid = map.latLngToLayerPoint(map.getCenter());
    var pin = { x0: mid.x - 18, x1: mid.x + 18, y0: mid.y - 48, y1: mid.y + 6 };
    var placed = [];
    features.forEach(function (f) {
      var p = f.properties, at = p.label || p.center;
      if (!at || !p.name) return;
      var ll = latLng(at);
      if (!view.contains(ll)) ll = visiblePoint(f.geometry, view);
      if (!ll) return;
      var pt = map.latLngToLayerPoint(ll);
      var w = p.name.length * 13 + 8, h = 18;
      var box = { x0: pt.x - w / 2, x1: pt.x + w / 2, y0: pt.y - h / 2, y1: pt.y + h / 2 };
      // Not under the centre pin: just above or below it, whichever is nearer.
      if (overlaps(box, pin)) {
        var shift = pt.y < (pin.y0 + pin.y1) / 2 ? pin.y0 - 2 - box.y1 : pin.y1 + 2 - box.y0;
        box.y0 += shift; box.y1 += shift;
        pt = pt.add([0, shift]);
        ll = map.layerPointToLatLng(pt);
      }
      if (placed.some(function (o) { return overlaps(box, o); })) return;
      placed.push(box);
      L.marker(ll, {
        pane: 'labels', interactive: false, keyboard: false,
        icon: L.divIcon({ className: 'region-label level-' + p.level, html: '<span></span>', iconSize: null })
      }).addTo(labelLayer).getElement().firstChild.textContent = p.name;
    });
  }

  var poiLayer = L.layerGroup().addTo(map);
  function drawMarkers() {
    poiLayer.clearLayers();
    state.items.forEach(function (poi, i) {
      var at = parseLngLat(poi.location);
      if (!at) return;
      var marker = L.marker(latLng(at), {
        title: poi.name, riseOnHover: true, zIndexOffset: i === state.selected ? 1000 : 0,
        icon: L.divIcon({ className: 'poi-marker' + (i === state.selected ? ' selected' : ''), html: '', iconSize: null })
      });
      marker.on('click', function () { choose(i); });
      marker.addTo(poiLayer).getElement().textContent = String(i + 1);
    });
  }

  var viewSet = false;
  /** The map's centre; Beijing until the start-up has set a view. */
  function centre() {
    if (!viewSet) return BEIJING;
    var c = map.getCenter();
    return [c.lng, c.lat];
  }

  /** Moves the map; `keepList` keeps the list (an item was chosen) and only re-reads the address. */
  function moveTo(point, zoom, keepList) {
    state.keepList = !!keepList;
    var z = zoom == null ? (viewSet ? map.getZoom() : START_ZOOM) : zoom;
    viewSet = true;
    // A reset, not a pan: the centre is exactly the point (a pan moves by whole pixels), and
    // moveend comes at once and always, even when the view does not change.
    map.setView(latLng(point), z, { reset: true });
  }

  map.on('movestart', function () { $('mapbox').classList.add('moving'); });
  map.on('moveend', function () {
    $('mapbox').classList.remove('moving');
    loadRegions();
    var keep = state.keepList;
    state.keepList = false;
    state.notice = state.nextNotice;
    state.nextNotice = '';
    var c = centre();
    refreshAddress(c);
    if (!keep) refreshAround(c);
    else renderList();
  });

  // ---------- address of the centre (regeo)

  var regeoChannel = new Channel();
  function refreshAddress(point) {
    var key = fmt(point);
    state.regeo = null;
    state.regeoFor = null;
    $('here-title').textContent = '正在获取地址…';
    $('here-detail').textContent = key;
    updateChosen();
    api('v3/geocode/regeo', { location: key, extensions: 'base' }, regeoChannel.next()).then(function (answer) {
      state.regeo = answer;
      state.regeoFor = key;
      var r = answer.regeocode || {}, a = r.addressComponent || {};
      $('here-title').textContent = text(r.formatted_address) || '没有找到这个位置的地址';
      $('here-detail').textContent = [text(a.district), text(a.township), a.adcode ? 'adcode ' + a.adcode : ''].filter(Boolean).join(' · ');
      renderList();
      updateChosen();
    }).catch(function (e) {
      if (isAbort(e)) return;
      $('here-title').textContent = '地址获取失败';
      $('here-detail').textContent = e.message;
      updateChosen();
    });
  }

  // ---------- the list

  var listChannel = new Channel();
  function listState(message, kind) {
    var s = $('list-state');
    s.className = kind || '';
    s.textContent = '';
    if (kind === 'loading') s.appendChild(node('span', 'spinner'));
    if (message) s.appendChild(document.createTextNode(message));
  }

  /** The 20 nearest POIs: within 3 km, else as far as 50 km (AMap's largest radius). */
  function refreshAround(point) {
    var signal = listChannel.next();
    state.mode = 'around';
    state.origin = point;
    state.selected = -1;
    state.items = [];
    var place = state.pendingPlace;
    state.pendingPlace = null;
    renderList();
    listState('正在查找附近的地点…', 'loading');
    function ask(radius) {
      return api('v3/place/around', {
        location: fmt(point), radius: String(radius), sortrule: 'distance', offset: String(LIST_SIZE),
        page: '1', types: AROUND_TYPES, extensions: 'base'
      }, signal).then(function (answer) { return answer.pois || []; });
    }
    ask(3000).then(function (pois) {
      return pois.length >= LIST_SIZE ? pois : ask(50000);
    }).then(function (pois) {
      if (place) {
        pois = pois.filter(function (p) { return !(p.id && p.id === place.id); });
        pois.unshift(place);
        pois = pois.slice(0, LIST_SIZE);
      }
      state.items = pois;
      state.selected = place ? 0 : -1;
      listState(pois.length ? '' : '附近没有找到地点');
      renderList();
    }).catch(function (e) {
      if (isAbort(e)) return;
      listState('附近地点加载失败：' + e.message, 'error');
    });
  }

  function renderList() {
    var list = $('list');
    list.textContent = '';
    var head = $('list-head');
    if (state.mode === 'search') {
      head.textContent = '“' + state.keyword + '”的搜索结果，距离从第一项算起';
    } else {
      head.textContent = state.notice || (state.items.length ? '附近地点，距离从地图中心算起' : '');
      var r = state.regeo && state.regeoFor === fmt(state.origin || centre()) ? state.regeo.regeocode : null;
      var li = row(-1, '●', '地图中心位置', r ? text(r.formatted_address) : '', '');
      li.classList.add('centre');
      list.appendChild(li);
    }
    state.items.forEach(function (poi, i) {
      var d;
      if (state.mode === 'search') {
        var at = parseLngLat(poi.location), first = parseLngLat(state.items[0].location);
        d = i === 0 ? '第一项' : at && first ? distanceText(haversine(first, at)) : '';
      } else {
        d = poi.distance !== '' && poi.distance != null ? distanceText(Number(poi.distance)) : '';
      }
      var sub = text(poi.address) || [text(poi.cityname), text(poi.adname)].join('');
      var kind = text(poi.type).split(';').pop();
      list.appendChild(row(i, String(i + 1), text(poi.name), [kind, sub].filter(Boolean).join(' · '), d));
    });
    drawMarkers();
    updateChosen();
  }

  function row(index, badge, name, sub, distance) {
    var li = node('li');
    li.setAttribute('role', 'option');
    li.setAttribute('aria-selected', String(index === state.selected));
    li.dataset.index = String(index);
    li.appendChild(node('span', 'no', badge));
    var t = node('span', 'text');
    t.appendChild(node('span', 'name', name));
    if (sub) t.appendChild(node('span', 'sub', sub));
    li.appendChild(t);
    if (distance) li.appendChild(node('span', 'distance', distance));
    li.appendChild(node('span', 'check', '✓'));
    li.addEventListener('click', function () { choose(index); });
    return li;
  }

  /** Chooses a list item (-1: the centre the list was made for) and moves the map to it. */
  function choose(index, zoom) {
    state.selected = index;
    var point = index < 0 ? state.origin : parseLngLat(state.items[index] && state.items[index].location);
    renderList();
    if (point) moveTo(point, zoom, true);
  }

  function chosenPOI() {
    return state.selected >= 0 ? state.items[state.selected] || null : null;
  }

  function updateChosen() {
    var poi = chosenPOI();
    var ready = !!state.regeo && state.regeoFor === fmt(centre());
    $('submit').disabled = !ready;
    var r = state.regeo && state.regeo.regeocode;
    $('chosen').textContent = poi ? '已选：' + poi.name : ready ? '已选：' + text(r.formatted_address) : '';
  }

  // ---------- search: suggestions as you type, place/text on 搜索

  var tipsChannel = new Channel();
  var tipTimer = null;
  var tips = [];
  var activeTip = -1;

  function hideTips() {
    $('tips').hidden = true;
    tips = [];
    activeTip = -1;
    tipsChannel.next();
    clearTimeout(tipTimer);
  }

  function cityHint() {
    if (params.get('city')) return params.get('city');
    var a = state.regeo && state.regeo.regeocode && state.regeo.regeocode.addressComponent;
    return a && typeof a.citycode === 'string' ? a.citycode : '';
  }

  $('q').addEventListener('input', function () {
    clearTimeout(tipTimer);
    var keywords = $('q').value.trim();
    if (!keywords) { hideTips(); return; }
    tipTimer = setTimeout(function () { suggest(keywords); }, 250);
  });

  function suggest(keywords) {
    var query = { keywords: keywords, datatype: 'all', location: fmt(centre()) };
    var city = cityHint();
    if (city) query.city = city;
    api('v3/assistant/inputtips', query, tipsChannel.next()).then(function (answer) {
      tips = (answer.tips || []).filter(function (t) { return t.name; });
      activeTip = -1;
      renderTips(keywords);
    }).catch(function (e) {
      if (isAbort(e)) return;
      tips = [];
      renderTips(keywords, '输入提示加载失败：' + e.message);
    });
  }

  function renderTips(keywords, error) {
    var ul = $('tips');
    ul.textContent = '';
    if (error || !tips.length) {
      ul.appendChild(node('li', 'note', error || '没有找到“' + keywords + '”相关的地点'));
    }
    tips.forEach(function (tip, i) {
      var li = node('li', i === activeTip ? 'active' : '');
      li.setAttribute('role', 'option');
      var name = node('span', 'name');
      var at = tip.name.indexOf(keywords);
      if (at >= 0) {
        name.appendChild(document.createTextNode(tip.name.slice(0, at)));
        name.appendChild(node('mark', '', keywords));
        name.appendChild(document.createTextNode(tip.name.slice(at + keywords.length)));
      } else {
        name.textContent = tip.name;
      }
      li.appendChild(name);
      var sub = [text(tip.district), text(tip.address)].filter(Boolean).join(' ');
      if (sub) li.appendChild(node('span', 'sub', sub));
      li.addEventListener('mousedown', function (e) { e.preventDefault(); });
      li.addEventListener('click', function () { pickTip(tip); });
      ul.appendChild(li);
    });
    ul.hidden = false;
  }

  $('q').addEventListener('keydown', function (e) {
    if ($('tips').hidden || !tips.length) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      activeTip = (activeTip + (e.key === 'ArrowDown' ? 1 : tips.length - 1) + (activeTip < 0 && e.key === 'ArrowUp' ? 1 : 0)) % tips.length;
      renderTips($('q').value.trim());
    } else if (e.key === 'Enter' && activeTip >= 0) {
      e.preventDefault();
      pickTip(tips[activeTip]);
    } else if (e.key === 'Escape') {
      hideTips();
    }
  });
  $('q').addEventListener('blur', function () { setTimeout(hideTips, 150); });

  /** A suggestion with a location: the map goes there and lists what is around it, the suggestion first. */
  function pickTip(tip) {
    hideTips();
    $('q').value = tip.name;
    var at = parseLngLat(tip.location);
    if (!at) { search(tip.name); return; }
    state.pendingPlace = {
      id: text(tip.id), name: tip.name, type: '', typecode: text(tip.typecode), address: text(tip.address),
      location: tip.location, distance: '0', adcode: text(tip.adcode), adname: '', cityname: text(tip.district)
    };
    moveTo(at, Math.max(viewSet ? map.getZoom() : 0, 15), false);
  }

  $('search').addEventListener('submit', function (e) {
    e.preventDefault();
    var keywords = $('q').value.trim();
    hideTips();
    $('q').blur();
    if (keywords) search(keywords);
  });

  /** place/text: the hits listed with their distances from the first, which is chosen. */
  function search(keywords) {
    var signal = listChannel.next();
    state.mode = 'search';
    state.keyword = keywords;
    state.items = [];
    state.selected = -1;
    renderList();
    listState('正在搜索“' + keywords + '”…', 'loading');
    var query = { keywords: keywords, offset: String(LIST_SIZE), page: '1', extensions: 'base' };
    var city = cityHint();
    if (city) query.city = city;
    return api('v3/place/text', query, signal).then(function (answer) {
      var hits = (answer.pois || []).filter(function (p) { return parseLngLat(p.location); });
      state.items = hits;
      if (!hits.length) {
        listState('没有找到“' + keywords + '”相关的地点');
        renderList();
        return false;
      }
      listState('');
      state.origin = parseLngLat(hits[0].location);
      choose(0, searchZoom(state.origin, hits));
      return true;
    }).catch(function (e) {
      if (isAbort(e)) return false;
      listState('搜索失败：' + e.message, 'error');
      return false;
    });
  }

  /** The closest zoom (12 to 16) that shows, around the first hit, the other hits within 5 km. */
  function searchZoom(first, hits) {
    var bounds = L.latLngBounds([latLng(first)]);
    hits.forEach(function (h) {
      var p = parseLngLat(h.location);
      if (!p || haversine(first, p) > 5000) return;
      bounds.extend(latLng(p));
      bounds.extend(L.latLng(2 * first[1] - p[1], 2 * first[0] - p[0]));
    });
    return Math.max(12, Math.min(16, map.getBoundsZoom(bounds, false, L.point(40, 40))));
  }

  // ---------- locate: browser geolocation (WGS-84) → GCJ-02

  function devicePosition() {
    return new Promise(function (resolve, reject) {
      if (!navigator.geolocation) { reject(new Error('此浏览器不支持定位')); return; }
      navigator.geolocation.getCurrentPosition(function (p) { resolve([p.coords.longitude, p.coords.latitude]); }, function (e) {
        var why = { 1: '没有定位权限', 2: '无法确定位置', 3: '定位超时' }[e.code] || e.message || '定位失败';
        reject(new Error(why));
      }, { enableHighAccuracy: true, timeout: 10000, maximumAge: 60000 });
    });
  }

  function locate() {
    var button = $('locate');
    button.classList.add('busy');
    return devicePosition().then(function (wgs) {
      return api('v3/assistant/coordinate/convert', { locations: fmt(wgs), coordsys: 'gps' });
    }).then(function (answer) {
      var gcj = parseLngLat(String(answer.locations || '').split(';')[0]);
      if (!gcj) throw new Error('坐标转换失败');
      moveTo(gcj, Math.max(viewSet ? map.getZoom() : 0, 16), false);
      return true;
    }).catch(function (e) {
      toast('无法定位：' + e.message);
      return false;
    }).then(function (ok) {
      button.classList.remove('busy');
      return ok;
    });
  }
  $('locate').addEventListener('click', locate);

  // ---------- submit: the regeo answer plus the chosen POI, to the embedding app

  $('submit').addEventListener('click', function () {
    if (!state.regeo) return;
    var result = JSON.parse(JSON.stringify(state.regeo));
    result.location = state.regeoFor;
    result.poi = chosenPOI();
    showResult(result);
    deliver(result);
  });

  function deliver(result) {
    // An iframe's parent (any origin: the result is what the user chose to share).
    try { if (window.parent && window.parent !== window) window.parent.postMessage(result, '*'); } catch (e) { /* not ours to fail on */ }
    // WKWebView: userContentController.add(handler, name: "gazetteer").
    try {
      var ios = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.gazetteer;
      if (ios) ios.postMessage(result);
    } catch (e) { /* ignore */ }
    // Android WebView: addJavascriptInterface(object, "gazetteer") with postMessage(String).
    try {
      if (window.gazetteer && typeof window.gazetteer.postMessage === 'function') window.gazetteer.postMessage(JSON.stringify(result));
    } catch (e) { /* ignore */ }
    window.dispatchEvent(new CustomEvent('gazetteer:result', { detail: result }));
  }

  function showResult(result) {
    var r = result.regeocode || {}, a = r.addressComponent || {};
    var dl = $('result-summary');
    dl.textContent = '';
    var rows = [
      ['地点', result.poi ? result.poi.name : ''], ['地址', text(r.formatted_address)],
      ['省', text(a.province)], ['市', text(a.city) || text(a.province)], ['区县', text(a.district)],
      ['街道/乡镇', text(a.township)], ['adcode', text(a.adcode)], ['citycode', text(a.citycode)],
      ['towncode', text(a.towncode)], ['乡镇代码(9位)', text(a.towncode9)], ['坐标', result.location]
    ];
    rows.forEach(function (pair) {
      if (!pair[1]) return;
      dl.appendChild(node('dt', '', pair[0]));
      dl.appendChild(node('dd', '', pair[1]));
    });
    $('result-json').textContent = JSON.stringify(result, null, 2);
    $('result').hidden = false;
    $('result-close').focus();
  }
  $('result-close').addEventListener('click', function () { $('result').hidden = true; });

  // ---------- start: ?location, ?address, ?keyword, else the device's position if granted, else Beijing

  function zoomParam() {
    var z = parseInt(params.get('zoom'), 10);
    return isFinite(z) ? Math.max(3, Math.min(18, z)) : null;
  }

  function zoomForLevel(level) {
    if (/省|国家/.test(level)) return 7;
    if (/^市|地市/.test(level)) return 10;
    if (/区县/.test(level)) return 12;
    if (/乡镇|街道/.test(level)) return 14;
    return 16;
  }

  function geolocationGranted() {
    if (!navigator.permissions || !navigator.permissions.query || !navigator.geolocation) return Promise.resolve(false);
    return navigator.permissions.query({ name: 'geolocation' }).then(function (s) { return s.state === 'granted'; }, function () { return false; });
  }

  function start() {
    var zoom = zoomParam();
    if (params.has('location')) {
      var at = parseLngLat(params.get('location'));
      if (at) { moveTo(at, zoom || 16); return; }
      toast('location 参数应为“经度,纬度”，已显示北京');
      moveTo(BEIJING, zoom || START_ZOOM);
      return;
    }
    if (params.get('address')) {
      var address = params.get('address');
      $('here-title').textContent = '正在查找“' + address + '”…';
      var query = { address: address };
      if (params.get('city')) query.city = params.get('city');
      api('v3/geocode/geo', query).then(function (answer) {
        var g = (answer.geocodes || [])[0];
        var at = g && parseLngLat(g.location);
        if (!at) throw new Error('没有找到“' + address + '”');
        state.nextNotice = '已定位到“' + (text(g.formatted_address) || address) + '”' +
          (g.location_approximate === 'true' ? '（大致位置，请拖动地图确认）' : '');
        moveTo(at, zoom || zoomForLevel(text(g.level)));
      }).catch(function (e) {
        toast(e.message + '，已显示北京');
        moveTo(BEIJING, zoom || START_ZOOM);
      });
      return;
    }
    if (params.get('keyword')) {
      var keyword = params.get('keyword');
      $('q').value = keyword;
      moveTo(BEIJING, zoom || START_ZOOM);
      search(keyword);
      return;
    }
    geolocationGranted().then(function (granted) {
      moveTo(BEIJING, zoom || START_ZOOM);
      if (granted) locate();
    });
  }

  // For tests and embedders: the state, read-only in spirit.
  window.gazetteerPicker = { map: map, state: state, locate: locate, search: search };
  start();
})();
