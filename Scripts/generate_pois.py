#!/usr/bin/env python3
"""Generate a large, realistic-looking POI CSV for benchmarks (docs/csv-formats.md, POI format).

    python3 Scripts/generate_pois.py --rows 1000000 --seed 1 --out bench-out/pois-1000000-s1.csv

Deterministic: the same arguments (and the same seed/ folder) give a byte-identical file. Python 3
standard library only.

How the rows are made:

* Points lie inside the real district polygons of the seed (`seed/boundaries_district.csv`, plus
  the city polygons of the four cities without districts, 东莞, 中山, 儋州, 嘉峪关, from
  `seed/boundaries_city.csv`). Districts without a polygon (Taiwan) get no POIs. Point-in-polygon
  is an even-odd ray cast over the edges of one horizontal band of the polygon (a banded edge
  index built lazily per district), so the 29 m outlines are used as they are.
* A district is drawn by weight: urban 区 far more than county-level 市, 县 and 旗, times a factor
  for the size of the city (北京/上海/广州/深圳, then the big provincial capitals). Within the
  district most points are drawn from a gaussian around the district centre (the seat of
  government, where city cores are) and the rest uniformly over the polygon, so city cores are
  dense (thousands of POIs within 5 km of the centre of a big city at 1M rows) and the
  countryside is sparse.
* Names follow real patterns: brand + branch (瑞幸咖啡(灵隐店), 建设银行(西湖支行)), place name +
  category (唱凯镇中心小学, 临川区人民医院), surname + shop word (王记面馆); place names are the
  district and town names of `seed/regions.csv`.
* Categories are AMap paths and 6-digit codes, the scheme of the seed's POIs (SOURCES.md, amenity
  table); a few frequent AMap categories the seed does not use are added (宾馆酒店 1001xx,
  便利店 060200, 超市 060400, 美容美发 071100, 住宅小区 120302, 公司 170200, 中学 141202,
  小学 141203).
* Addresses: district + road + number (西湖区灵隐路123号); adcode = the district whose polygon
  holds the point; towncode empty (the importer may fill it in).
* Ids `gen:000000001`, rows in random (not spatial) order.
"""

import argparse
import bisect
import csv
import math
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SEED_DIR = os.path.join(os.path.dirname(HERE), "seed")
HEADER = ["id", "name", "type", "typecode", "address", "phone", "lng", "lat", "adcode", "towncode"]

# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------

# Per-district base weight by the last character of its name.
SUFFIX_WEIGHT = {"区": 10.0, "市": 3.0, "县": 1.5, "旗": 0.8}
# Cities without districts: the whole city is one "district".
CITY_AS_DISTRICT_WEIGHT = 30.0

# City-size factor by code prefix (municipalities by 2 digits, cities by 4).
CITY_FACTOR = {}
for _p in ("11", "31", "4401", "4403"):
    CITY_FACTOR[_p] = 4.0
for _p in ("12", "50", "3301", "5101", "4201", "6101", "3201", "3205", "4301", "4101", "4419",
           "3702", "2101", "3302", "5301", "4406", "3401", "3502", "3501", "3701", "2102", "2201",
           "2301", "1301", "4501", "3601", "5201", "1401", "3202", "3204", "3303", "4413", "6201",
           "6501", "1501", "4602", "4601"):
    CITY_FACTOR[_p] = 2.5


def city_factor(code):
    return CITY_FACTOR.get(code[:4]) or CITY_FACTOR.get(code[:2]) or 1.0


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

SURNAMES = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
ROAD_WORDS = ["人民", "解放", "中山", "建设", "文化", "胜利", "和平", "新华", "长江", "黄河", "滨江", "朝阳",
              "光明", "幸福", "友谊", "团结", "迎宾", "健康", "学府", "工业", "东风", "红旗", "青年", "府前",
              "环城", "滨河", "世纪", "金沙", "育才", "跃进", "振兴", "繁荣", "安居", "富民", "兴业", "创业",
              "科技", "商业", "园林", "花园", "体育", "车站", "北京", "上海", "延安", "复兴", "民主", "沿江"]
ROAD_SUFFIXES = ["路", "路", "路", "街", "大道", "东路", "西路", "南路", "北路", "中路", "大街", "巷"]
CN_NUM = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四", "十五"]
PLACE_WORDS = ["阳光", "幸福", "金色", "锦绣", "和谐", "翠苑", "景苑", "馨园", "丽景", "华庭", "名都", "新城",
               "嘉园", "御府", "星河", "滨江", "海棠", "枫林", "紫荆", "桂花", "香樟", "康城", "世纪", "盛世"]
ESTATE_SUFFIXES = ["小区", "花园", "家园", "苑", "公寓", "新村", "华府", "雅苑", "一期", "二期"]
ESTATE_BRANDS = ["万科", "碧桂园", "恒大", "保利", "绿城", "中海", "龙湖", "融创", "金地", "华润"]
FOODS = ["面馆", "饺子馆", "小吃店", "餐馆", "饭店", "大排档", "烧烤", "火锅店", "米粉店", "牛肉面", "麻辣烫",
         "包子铺", "馄饨店", "家常菜", "酸菜鱼", "黄焖鸡米饭", "快餐", "土菜馆", "羊肉汤", "烤鱼"]
REGIONAL_FOODS = ["兰州拉面", "沙县小吃", "重庆小面", "桂林米粉", "黄焖鸡米饭", "杨国福麻辣烫", "张亮麻辣烫",
                  "成都冒菜", "东北饺子馆", "湘菜馆", "川菜馆", "粤式茶餐厅", "西北面馆", "淮南牛肉汤"]
RESTAURANT_BRANDS = ["海底捞火锅", "外婆家", "西贝莜面村", "小龙坎火锅", "太二酸菜鱼", "绿茶餐厅", "呷哺呷哺",
                     "巴奴毛肚火锅", "老乡鸡", "乡村基", "大米先生", "吉野家", "味千拉面", "九毛九"]
FAST_FOOD = ["肯德基", "麦当劳", "华莱士", "德克士", "汉堡王", "真功夫", "永和大王", "必胜客", "塔斯汀", "赛百味"]
COFFEE = ["瑞幸咖啡", "星巴克", "库迪咖啡", "Manner Coffee", "幸运咖", "Tims天好咖啡", "挪瓦咖啡", "M Stand"]
TEA = ["蜜雪冰城", "茶百道", "古茗", "一点点", "CoCo都可", "书亦烧仙草", "沪上阿姨", "喜茶", "奈雪的茶", "霸王茶姬"]
BANKS = ["中国工商银行", "中国建设银行", "中国农业银行", "中国银行", "交通银行", "招商银行", "中国邮政储蓄银行",
         "兴业银行", "中信银行", "浦发银行", "民生银行", "农村商业银行", "平安银行", "光大银行"]
BANK_SHORT = ["工商银行", "建设银行", "农业银行", "中国银行", "交通银行", "招商银行", "邮储银行"]
HOTELS = ["如家酒店", "汉庭酒店", "7天酒店", "锦江之星", "格林豪泰酒店", "全季酒店", "亚朵酒店", "维也纳酒店",
          "城市便捷酒店", "莫泰酒店", "尚客优酒店", "布丁酒店"]
STORES = ["美宜佳", "罗森", "全家", "7-ELEVEn", "便利蜂", "好德便利", "苏宁小店", "天福便利店", "芙蓉兴盛"]
SUPERMARKETS = ["永辉超市", "华润万家", "沃尔玛", "物美超市", "大润发", "家乐福", "盒马鲜生", "联华超市"]
PHARMACIES = ["老百姓大药房", "益丰大药房", "大参林", "海王星辰", "一心堂", "国大药房", "同仁堂"]
CINEMAS = ["万达影城", "CGV影城", "横店电影城", "大地影院", "金逸影城", "博纳国际影城", "UME影城"]
KTVS = ["好乐迪KTV", "纯K", "星聚会KTV", "麦乐迪KTV", "唱吧麦颂KTV"]
EXPRESS = ["顺丰速运", "菜鸟驿站", "中通快递", "圆通速递", "韵达快递", "申通快递", "京东快递", "极兔速递"]
CHARGING = ["特来电充电站", "星星充电", "国家电网充电站", "蔚来换电站", "特斯拉超级充电站"]
SALONS = ["美发", "理发店", "造型", "美容院", "美甲店", "发型设计"]
COMPANY_WORDS = ["科技", "贸易", "建筑工程", "电子", "网络科技", "物流", "商贸", "实业", "文化传媒", "机械设备",
                 "农业开发", "食品", "信息技术", "装饰工程", "生物科技"]
CLINIC_WORDS = ["诊所", "口腔诊所", "中医诊所", "门诊部", "卫生室"]


def pick(rng, seq):
    return seq[int(rng.random() * len(seq))]


def branch(ctx):
    """A branch name as AMap writes it: a town, a road or the district."""
    r = ctx.rng.random()
    if r < 0.45:
        return ctx.town_short()
    if r < 0.8:
        return ctx.road()
    if r < 0.9:
        return ctx.dshort + pick(ctx.rng, ["万达广场", "吾悦广场", "银泰城", "火车站", "汽车站", "中心", "步行街"])
    return ctx.dshort


def cn_num(rng, high=10):
    return CN_NUM[int(rng.random() * high)]


# Each category: weight, AMap type path, typecode, name function.
def n_chinese_restaurant(c):
    r = c.rng.random()
    if r < 0.45:
        return pick(c.rng, SURNAMES) + pick(c.rng, ["记", "家", "氏", "老"]) + pick(c.rng, FOODS)
    if r < 0.75:
        return pick(c.rng, REGIONAL_FOODS) + ("(" + branch(c) + "店)" if c.rng.random() < 0.5 else "")
    if r < 0.9:
        return pick(c.rng, RESTAURANT_BRANDS) + "(" + branch(c) + "店)"
    return c.town_short() + pick(c.rng, FOODS)


CATEGORIES = [
    (14, "餐饮服务;中餐厅;中餐厅", "050100", n_chinese_restaurant),
    (4, "餐饮服务;快餐厅;快餐厅", "050300", lambda c: pick(c.rng, FAST_FOOD) + "(" + branch(c) + "店)"),
    (3, "餐饮服务;咖啡厅;咖啡厅", "050500", lambda c: pick(c.rng, COFFEE) + "(" + branch(c) + "店)"),
    (3, "餐饮服务;冷饮店;冷饮店", "050700", lambda c: pick(c.rng, TEA) + "(" + branch(c) + "店)"),
    (6, "购物服务;便民商店/便利店;便民商店/便利店", "060200",
     lambda c: pick(c.rng, STORES) + "(" + branch(c) + "店)" if c.rng.random() < 0.6
     else pick(c.rng, SURNAMES) + pick(c.rng, ["记便利店", "家超市", "氏百货", "记烟酒店"])),
    (2, "购物服务;超级市场;超市", "060400", lambda c: pick(c.rng, SUPERMARKETS) + "(" + branch(c) + "店)"),
    (1.5, "购物服务;综合市场;综合市场", "060700",
     lambda c: (c.town_short() if c.rng.random() < 0.6 else c.road()) + pick(c.rng, ["农贸市场", "菜市场", "综合市场"])),
    (3, "金融保险服务;银行;银行", "160100", lambda c: pick(c.rng, BANKS) + "(" + branch(c) + "支行)"),
    (1, "金融保险服务;自动提款机;自动提款机", "160300", lambda c: pick(c.rng, BANK_SHORT) + "ATM(" + branch(c) + ")"),
    (3, "住宿服务;宾馆酒店;经济型连锁酒店", "100105", lambda c: pick(c.rng, HOTELS) + "(" + branch(c) + "店)"),
    (2, "住宿服务;宾馆酒店;宾馆酒店", "100100",
     lambda c: c.town_short() + pick(c.rng, ["宾馆", "大酒店", "商务酒店", "旅馆", "招待所"])),
    (2, "汽车服务;加油站;加油站", "010100",
     lambda c: pick(c.rng, ["中国石化", "中国石油", "中国石化", "中国石油", "壳牌", "中海油"]) + c.town_short() + "加油站"),
    (0.8, "汽车服务;充电站;充电站", "011100", lambda c: pick(c.rng, CHARGING) + "(" + branch(c) + ")"),
    (0.8, "汽车服务;洗车场;洗车场", "010500", lambda c: pick(c.rng, SURNAMES) + "记洗车"),
    (1.5, "科教文化服务;学校;小学", "141203",
     lambda c: c.town_full() + "中心小学" if c.rng.random() < 0.4
     else c.dshort + pick(c.rng, ["实验小学", "第" + cn_num(c.rng) + "小学"]) if c.rng.random() < 0.5
     else c.town_short() + "小学"),
    (1, "科教文化服务;学校;中学", "141202",
     lambda c: c.dshort + "第" + cn_num(c.rng, 15) + "中学" if c.rng.random() < 0.5
     else c.town_full() + pick(c.rng, ["中学", "初级中学"])),
    (1.5, "科教文化服务;学校;幼儿园", "141204",
     lambda c: c.town_short() + pick(c.rng, ["中心幼儿园", "幼儿园", "第" + cn_num(c.rng, 5) + "幼儿园"])
     if c.rng.random() < 0.7 else pick(c.rng, PLACE_WORDS) + pick(c.rng, ["幼儿园", "双语幼儿园", "艺术幼儿园"])),
    (1, "科教文化服务;培训机构;培训机构", "141400",
     lambda c: pick(c.rng, ["新东方", "学而思", "好未来", "卓越教育", "新华电脑学校"]) + "(" + branch(c) + "校区)"),
    (0.4, "科教文化服务;驾校;驾校", "141500", lambda c: c.dshort + pick(c.rng, ["驾校", "驾驶员培训学校"])),
    (0.3, "科教文化服务;图书馆;图书馆", "140500", lambda c: c.dfull + "图书馆" + ("" if c.rng.random() < 0.5 else c.town_short() + "分馆")),
    (1, "医疗保健服务;综合医院;综合医院", "090100",
     lambda c: c.dfull + pick(c.rng, ["人民医院", "中医院", "妇幼保健院", "第二人民医院"]) if c.rng.random() < 0.4
     else c.town_full() + "卫生院"),
    (2, "医疗保健服务;诊所;诊所", "090300",
     lambda c: c.town_short() + "社区卫生服务中心" if c.rng.random() < 0.3
     else pick(c.rng, SURNAMES) + pick(c.rng, CLINIC_WORDS)),
    (2.5, "医疗保健服务;医药保健销售店;药房", "090601", lambda c: pick(c.rng, PHARMACIES) + "(" + branch(c) + "店)"),
    (2.5, "生活服务;美容美发店;美容美发店", "071100",
     lambda c: pick(c.rng, PLACE_WORDS + SURNAMES) + pick(c.rng, SALONS)),
    (2, "生活服务;物流速递;物流速递", "070500", lambda c: pick(c.rng, EXPRESS) + "(" + branch(c) + "营业部)"),
    (0.6, "生活服务;邮局;邮局", "070400", lambda c: "中国邮政(" + c.town_short() + "邮政所)"),
    (1.2, "体育休闲服务;影剧院;电影院", "080601", lambda c: pick(c.rng, CINEMAS) + "(" + branch(c) + "店)"),
    (0.8, "体育休闲服务;娱乐场所;KTV", "080302", lambda c: pick(c.rng, KTVS) + "(" + branch(c) + "店)"),
    (0.5, "体育休闲服务;娱乐场所;网吧", "080308", lambda c: pick(c.rng, PLACE_WORDS) + "网咖"),
    (1, "政府机构及社会团体;公检法机构;公安警察", "130501", lambda c: c.dfull + "公安局" + c.town_full() + "派出所"),
    (1, "政府机构及社会团体;政府机关;政府机关相关", "130100",
     lambda c: c.town_full() + ("办事处" if c.town_full().endswith("街道") else "人民政府")
     if c.rng.random() < 0.6 else c.town_short() + pick(c.rng, ["社区居民委员会", "村民委员会", "社区服务中心"])),
    (3, "交通设施服务;公交车站;公交车站相关", "150700", lambda c: c.road() + pick(c.rng, ["", "口", "站", "东"]) + "(公交站)"),
    (2, "交通设施服务;停车场;停车场", "150900",
     lambda c: (pick(c.rng, PLACE_WORDS) + "广场" if c.rng.random() < 0.5 else c.road()) + pick(c.rng, ["停车场", "地下停车场", "公共停车场"])),
    (1, "公共设施;公共厕所;公共厕所", "200300", lambda c: c.road() + "公共厕所"),
    (0.3, "风景名胜;风景名胜;寺庙道观", "110205",
     lambda c: c.town_short() + pick(c.rng, ["寺", "庙", "观音寺", "关帝庙", "土地庙", "祠堂"])),
    (4, "商务住宅;住宅区;住宅小区", "120302",
     lambda c: (pick(c.rng, ESTATE_BRANDS) if c.rng.random() < 0.3 else "")
     + pick(c.rng, PLACE_WORDS + [c.town_short(), c.dshort]) + pick(c.rng, ESTATE_SUFFIXES)),
    (6, "公司企业;公司;公司", "170200",
     lambda c: pick(c.rng, [c.cityname, c.dshort, c.town_short()]) + pick(c.rng, PLACE_WORDS)
     + pick(c.rng, COMPANY_WORDS) + "有限公司"),
]
CAT_CUM = []
_acc = 0.0
for _w, *_rest in CATEGORIES:
    _acc += _w
    CAT_CUM.append(_acc)

# Area codes of a few big cities (code prefix -> 区号); elsewhere phones are mobile numbers.
AREA_CODES = {"11": "010", "31": "021", "12": "022", "50": "023", "4401": "020", "4403": "0755",
              "3301": "0571", "5101": "028", "4201": "027", "6101": "029", "3201": "025", "3205": "0512",
              "4301": "0731", "4101": "0371", "3702": "0532", "2101": "024", "3302": "0574", "5301": "0871"}
MOBILE_PREFIXES = ["130", "131", "133", "135", "136", "137", "138", "139", "150", "151", "152", "155",
                   "156", "158", "159", "173", "176", "177", "180", "181", "185", "186", "187", "188", "189", "199"]


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------

RING_RE = re.compile(r"\(([^()]+)\)")


def parse_rings(wkt):
    """All rings of a WKT POLYGON/MULTIPOLYGON as flat [x0, y0, x1, y1, ...] lists."""
    rings = []
    for text in RING_RE.findall(wkt):
        rings.append([float(v) for v in text.replace(",", " ").split()])
    return rings


class Shape:
    """A district's rings with a banded edge index for even-odd point-in-polygon tests."""

    __slots__ = ("rings", "minx", "miny", "maxx", "maxy", "bands", "nb", "band_h", "area_km2")

    def __init__(self, rings):
        self.rings = rings
        xs = [v for r in rings for v in r[0::2]]
        ys = [v for r in rings for v in r[1::2]]
        self.minx, self.maxx, self.miny, self.maxy = min(xs), max(xs), min(ys), max(ys)
        self.bands = None
        # Area (even-odd: holes subtract because they are traversed as separate rings; good enough).
        kx = 111.32 * math.cos(math.radians((self.miny + self.maxy) / 2))
        a = 0.0
        for r in rings:
            s = 0.0
            for i in range(0, len(r) - 2, 2):
                s += r[i] * r[i + 3] - r[i + 2] * r[i + 1]
            a += abs(s) / 2
        self.area_km2 = a * kx * 110.574

    def build(self):
        edges = 0
        for r in self.rings:
            edges += len(r) // 2 - 1
        nb = max(1, min(4096, edges // 4))
        h = (self.maxy - self.miny) / nb or 1e-9
        bands = [[] for _ in range(nb)]
        miny = self.miny
        for r in self.rings:
            for i in range(0, len(r) - 2, 2):
                x1, y1, x2, y2 = r[i], r[i + 1], r[i + 2], r[i + 3]
                if y1 == y2:
                    continue
                e = (y1, y2, x1, (x2 - x1) / (y2 - y1))
                lo, hi = (y1, y2) if y1 < y2 else (y2, y1)
                b0 = int((lo - miny) / h)
                b1 = int((hi - miny) / h)
                if b1 >= nb:
                    b1 = nb - 1
                for b in range(b0, b1 + 1):
                    bands[b].append(e)
        self.bands, self.nb, self.band_h = bands, nb, h

    def contains(self, x, y):
        if x < self.minx or x > self.maxx or y < self.miny or y > self.maxy:
            return False
        if self.bands is None:
            self.build()
        b = int((y - self.miny) / self.band_h)
        if b >= self.nb:
            b = self.nb - 1
        inside = False
        for y1, y2, x1, k in self.bands[b]:
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * k:
                inside = not inside
        return inside


# --------------------------------------------------------------------------------------------
# Seed loading
# --------------------------------------------------------------------------------------------

class District:
    __slots__ = ("code", "full", "short", "cityname", "lng", "lat", "shape", "towns", "roads",
                 "sigma_x", "sigma_y", "p_core", "anchor", "area_code")


def strip_suffix(name):
    for s in ("街道办事处", "街道", "镇", "乡", "苏木", "地区", "区", "县", "市", "旗"):
        if name.endswith(s) and len(name) > len(s) + 1:
            return name[: -len(s)]
    return name


def load(seed_dir):
    csv.field_size_limit(1 << 30)
    regions = {}
    with open(os.path.join(seed_dir, "regions.csv"), encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            regions[r["code"]] = r
    has_district = set()
    towns_of = {}
    for code, r in regions.items():
        if r["level"] == "district":
            has_district.add(r["parent"])
        elif r["level"] == "town":
            towns_of.setdefault(r["parent"], []).append((r["name"], r["short_name"] or strip_suffix(r["name"])))

    wanted = {}
    with open(os.path.join(seed_dir, "boundaries_district.csv"), encoding="utf-8", newline="") as f:
        for code, wkt in csv.reader(f):
            if code in regions and regions[code]["level"] == "district":
                wanted[code] = wkt
    with open(os.path.join(seed_dir, "boundaries_city.csv"), encoding="utf-8", newline="") as f:
        for code, wkt in csv.reader(f):
            if code in regions and regions[code]["level"] == "city" and code not in has_district:
                wanted[code] = wkt

    districts, weights = [], []
    for code in sorted(wanted):
        r = regions[code]
        d = District()
        d.code = code
        d.full = r["name"]
        d.short = r["short_name"] or strip_suffix(r["name"])
        parent = regions.get(r["parent"])
        if r["level"] == "city":
            d.cityname = d.short
        elif parent and parent["level"] == "city":
            d.cityname = parent["short_name"] or strip_suffix(parent["name"])
        else:
            d.cityname = d.short if not parent or code[:2] not in ("11", "12", "31", "50") else (parent["short_name"] or "")
        d.shape = Shape(parse_rings(wanted[code]))
        d.towns = towns_of.get(code) or [(d.full, d.short)]
        d.roads = None
        d.lng = float(r["lng"]) if r["lng"] else (d.shape.minx + d.shape.maxx) / 2
        d.lat = float(r["lat"]) if r["lat"] else (d.shape.miny + d.shape.maxy) / 2
        d.anchor = None
        d.area_code = AREA_CODES.get(code[:4]) or AREA_CODES.get(code[:2])
        if r["level"] == "city":
            w, urban = CITY_AS_DISTRICT_WEIGHT, True
        else:
            w = SUFFIX_WEIGHT.get(d.full[-1], 1.0)
            urban = d.full.endswith("区")
        w *= city_factor(code)
        # Core spread: a quarter of the district's "radius", 1.2-6 km in cities, 2-8 km elsewhere.
        radius = math.sqrt(max(d.shape.area_km2, 1.0))
        sigma_km = min(6.0, max(1.2, radius / 4)) if urban else min(8.0, max(2.0, radius / 5))
        d.sigma_y = sigma_km / 110.574
        d.sigma_x = sigma_km / (111.32 * math.cos(math.radians(d.lat)))
        d.p_core = 0.8 if urban else 0.6
        districts.append(d)
        weights.append(w)
    return districts, weights


# --------------------------------------------------------------------------------------------
# Row generation
# --------------------------------------------------------------------------------------------

class Ctx:
    """What name functions may use: the random source and the current district."""

    __slots__ = ("rng", "d", "dshort", "dfull", "cityname", "_town", "_road")

    def __init__(self, rng):
        self.rng = rng

    def set(self, d):
        self.d, self.dshort, self.dfull, self.cityname = d, d.short, d.full, d.cityname
        self._town = pick(self.rng, d.towns)
        self._road = None

    def town_full(self):
        return self._town[0]

    def town_short(self):
        return self._town[1]

    def road(self):
        if self._road is None:
            d = self.d
            if d.roads is None:
                names = [t[1] for t in d.towns[:12]] + [d.short] + ROAD_WORDS
                d.roads = [n + s for n in names for s in ROAD_SUFFIXES]
            self._road = pick(self.rng, d.roads)
        return self._road


def point_in(d, rng):
    """A point inside district `d`: gaussian around the centre, else uniform over the polygon."""
    s = d.shape
    core = rng.random() < d.p_core
    for attempt in range(60):
        if core and attempt < 30:
            x = rng.gauss(d.lng, d.sigma_x)
            y = rng.gauss(d.lat, d.sigma_y)
        else:
            x = s.minx + rng.random() * (s.maxx - s.minx)
            y = s.miny + rng.random() * (s.maxy - s.miny)
        if s.contains(x, y):
            return x, y
    if d.anchor is None:  # a sliver of a polygon: fall back on a fixed inside point
        d.anchor = (d.lng, d.lat) if s.contains(d.lng, d.lat) else None
        rr = random.Random(int(d.code))
        while d.anchor is None:
            x = s.minx + rr.random() * (s.maxx - s.minx)
            y = s.miny + rr.random() * (s.maxy - s.miny)
            if s.contains(x, y):
                d.anchor = (x, y)
    return d.anchor


def house_number(rng):
    r = rng.random()
    return str(1 + int(r * r * 600))


def address(c):
    rng = c.rng
    road = c.road()
    a = c.dfull + road + house_number(rng) + "号"
    r = rng.random()
    if r < 0.12:
        a += pick(rng, PLACE_WORDS) + "广场" + str(1 + int(rng.random() * 5)) + "层"
    elif r < 0.2:
        a += str(1 + int(rng.random() * 30)) + "幢" + str(101 + int(rng.random() * 20)) + "室"
    elif r < 0.23:
        a += "(" + c.town_short() + "地铁站" + pick(rng, ["A", "B", "C", "D"]) + "口步行200米)"
    elif r < 0.25:
        a += "," + house_number(rng) + "号"  # two numbers; needs CSV quoting
    return a


def phone(c):
    rng = c.rng
    r = rng.random()
    if r < 0.45:
        return ""
    mobile = pick(rng, MOBILE_PREFIXES) + "%08d" % int(rng.random() * 1e8)
    if r < 0.7 or c.d.area_code is None:
        return mobile
    land = c.d.area_code + "-" + str(20000000 + int(rng.random() * 7e7))
    return land if r < 0.9 else land + ";" + mobile


def generate(rows, seed, out, seed_dir):
    t0 = time.time()
    districts, weights = load(seed_dir)
    t_load = time.time() - t0
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    total_w = acc
    cat_total = CAT_CUM[-1]
    rng = random.Random(seed)
    c = Ctx(rng)
    ncat = len(CATEGORIES)
    nd = len(districts)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        batch = []
        for i in range(1, rows + 1):
            di = bisect.bisect_right(cum, rng.random() * total_w)
            d = districts[di if di < nd else nd - 1]
            c.set(d)
            x, y = point_in(d, rng)
            ci = bisect.bisect_right(CAT_CUM, rng.random() * cat_total)
            _, typ, code, fn = CATEGORIES[ci if ci < ncat else ncat - 1]
            batch.append(("gen:%09d" % i, fn(c), typ, code, address(c), phone(c),
                          "%.6f" % x, "%.6f" % y, d.code, ""))
            if len(batch) >= 10000:
                w.writerows(batch)
                batch.clear()
        w.writerows(batch)
    os.replace(tmp, out)
    return t_load, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, required=True, help="number of POI rows")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--out", required=True, help="output CSV file")
    ap.add_argument("--seed-dir", default=DEFAULT_SEED_DIR, help="the seed folder (default: %(default)s)")
    ap.add_argument("--quiet", action="store_true", help="print nothing")
    a = ap.parse_args()
    if a.rows < 0:
        ap.error("--rows must be >= 0")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    t_load, t_all = generate(a.rows, a.seed, a.out, a.seed_dir)
    if not a.quiet:
        print("wrote %d rows to %s in %.1f s (seed loaded in %.1f s)" % (a.rows, a.out, t_all, t_load), file=sys.stderr)


if __name__ == "__main__":
    main()
